// How `npm start` tells why a step failed: the step's own error line first (the service's "Error: --engine
// sherpa-onnx needs --model NAME|DIR", a JSON log line of level error or fatal, npm's "npm error …", a
// compiler's "error TS…"), then the end of what it printed, so that the cause is never lost behind a usage
// text or cut from a tail.

const PLAIN = /^\s*(?:error|fatal|npm err!|npm error)\b[\s:!]|^\s*\S+\(\d+,\d+\): error |^✘ \[ERROR\]|\berror TS\d+:|^\s*[\w.]*Error: /iu;

/** The error lines of `output` (at most `max`, in order, each once): what a reader needs first. */
export function causeLines(output, max = 3) {
  const found = [];
  for (const raw of String(output).split('\n')) {
    const line = raw.replace(/\s+$/u, '');
    if (!line) continue;
    let cause;
    if (line.startsWith('{')) {
      try {
        const j = JSON.parse(line);
        if (j && (j.level === 'error' || j.level === 'fatal') && typeof j.msg === 'string')
          cause = `${j.msg}${typeof j.error === 'string' ? `: ${j.error}` : ''}`;
      } catch {
        /* not JSON */
      }
    } else if (PLAIN.test(line)) cause = line.trim();
    if (cause && !found.includes(cause)) found.push(cause);
    if (found.length >= max) break;
  }
  return found;
}

/** The last `n` non-empty lines of `output`, each indented by "  | ". */
export function tailLines(output, n) {
  return String(output)
    .trimEnd()
    .split('\n')
    .slice(-n)
    .map((l) => `  | ${l}`)
    .join('\n');
}

/**
 * The report of a failed step: its cause lines first, then why it ended and the end of its output (or of
 * the log), with where the rest is.
 */
export function failureReport(what, why, output, logName, tail = 30) {
  const causes = causeLines(output);
  const head = causes.length
    ? `[dictee] ${what} failed: ${causes[0]}${causes
        .slice(1)
        .map((c) => `\n          ${c}`)
        .join('')}\n`
    : '';
  return `${head}[dictee] ${what} failed (${why}). The end of its output (all of it is in ${logName}):\n${tailLines(output, tail)}`;
}
