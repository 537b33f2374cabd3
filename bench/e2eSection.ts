/**
 * The end-to-end bench's (e2e.bench.ts) section of docs/benchmarks.md: the editor table (its header and
 * rows are read by others: keep them), the ratios, where the time goes.
 */
import type { Stats } from './e2eBaseline';
import type { BenchSection } from './run';

export const ROW = {
  recorderOff: 'service → extension → editor, grammar off',
  recorderOn: 'service → extension → editor, grammar on',
  pageOff: 'capture page: service → extension → editor (grammar off)',
  pageOn: 'capture page: service → extension → editor (grammar on)',
  baseline: 'baseline: service → bare ws client',
};

export interface Figures {
  /** DICTEE_BENCH_PULSE_LATENCY_MSEC, when set. */
  pulseLatency: string | undefined;
  /** Where the time went, per source (a sentence each). */
  where: string[];
  off: Stats;
  on: Stats;
  pageOff: Stats;
  pageOn: Stats;
  base: Stats;
  missingRecorder: number;
  missingPage: number;
  elapsedS: number;
}

export function section(f: Figures): BenchSection {
  const { off, on, pageOff, pageOn, base } = f;
  const fmt = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
  const ratio = (x: number, y: number) => (y > 0 ? (x / y).toFixed(0) : 'n/a');
  const ratio2 = (x: number, y: number) => (y > 0 ? (x / y).toFixed(2) : 'n/a');
  const row = (name: string, x: Stats) =>
    `| ${name} | ${x.n} | ${fmt(x.p50)} | ${fmt(x.p95)} | ${fmt(x.p99)} | ${fmt(x.max)} | ${fmt(x.mean)} |`;
  const markdown = `
Time from the service's \`final\` (stamped by a loopback proxy as it forwards it) to the chunk's text being
rendered in the editor of real VS Code (code-server 4.100.3 / VS Code 1.100, headless Chromium), with the
packaged extension recording its audio in each of its two ways, set explicitly (\`dictee.audio.source\`):
the recorder (\`recorder\`: sox on a PulseAudio virtual microphone; the \`editor, grammar off/on\` rows) and
the capture page (\`browser\`: the page in Chromium, whose fake microphone plays the same audio from a WAV
file; the \`capture page\` rows; the editor's tab is brought back to the front once the page records, as a
person goes back to the editor: a tab in the background renders late). Baseline, in the same run and at the same time: the same proxy to a bare
\`ws\` client streaming the same audio. One-word \`final\`s about every 400 ms of audio (320 ms tone, 80 ms
gap; \`engine_endpointing\` 0.05 s, \`max_buffer_size\` 1, proofreading off); ${fmt(f.elapsedS)} s of audio in
eight phases, the recorder's with the dictation grammar off, on, on, off, then the capture page's on, off,
off, on (\`dictee.grammar.enabled\`), each into a document of its own. The editor is read by a
MutationObserver on its rendered lines (provisional text is a decoration, not text, so it does not count).
A path without a final rendered fails the bench and writes nothing.

| path | finals | p50 (ms) | p95 (ms) | p99 (ms) | max (ms) | mean (ms) |
|---|---:|---:|---:|---:|---:|---:|
${row(ROW.recorderOff, off)}
${row(ROW.recorderOn, on)}
${row(ROW.pageOff, pageOff)}
${row(ROW.pageOn, pageOn)}
${row(ROW.baseline, base)}
| grammar on / off | | ${ratio2(on.p50, off.p50)} | ${ratio2(on.p95, off.p95)} | ${ratio2(on.p99, off.p99)} | | ${ratio2(on.mean, off.mean)} |
| grammar on / baseline | | ${ratio(on.p50, base.p50)}× | ${ratio(on.p95, base.p95)}× | ${ratio(on.p99, base.p99)}× | | |
| capture page / recorder, grammar on | | ${ratio2(pageOn.p50, on.p50)} | ${ratio2(pageOn.p95, on.p95)} | ${ratio2(pageOn.p99, on.p99)} | | ${ratio2(pageOn.mean, on.mean)} |

Where the time goes (bench/e2eStages.ts; the log line is written once the editor took the edit and reported
it back, so it may come after the text is on the screen): ${f.where.join('; ')}.

Finals sent to the extension but never rendered within 20 s: ${f.missingRecorder} (recorder), ${f.missingPage} (capture page).
${
  f.pulseLatency
    ? `Run with PULSE_LATENCY_MSEC=${f.pulseLatency} for the recorder: audio reaches the service steadily.`
    : "The recorder asks PulseAudio for 50 ms fragments (`PULSE_LATENCY_MSEC=50`, the extension's default), so audio\nreaches the service steadily; `DICTEE_BENCH_PULSE_LATENCY_MSEC` sets another value for the run."
}
`;
  return {
    title: 'End-to-end: service final → text in the VS Code editor',
    markdown,
    samples: { [ROW.recorderOff]: off.n, [ROW.recorderOn]: on.n, [ROW.pageOff]: pageOff.n, [ROW.pageOn]: pageOn.n, [ROW.baseline]: base.n },
    ratios: {
      'grammar on / off, p99': on.p99 / off.p99,
      'grammar on / baseline, p99': on.p99 / base.p99,
      'capture page / recorder, grammar on, p99': pageOn.p99 / on.p99,
    },
  };
}
