/**
 * A language model in pocketsphinx's binary (trie) form, made from its ARPA text once and kept: the
 * 89 MB French ARPA file takes seconds of parsing and about 240 MB for every decoder that loads it (each
 * session has its own decoder), its binary form (25 MB) loads in half a second and decodes the same
 * words (docs/engines.md). Made by `sphinx_lm_convert` (Debian's sphinxbase-utils) into the same
 * per-user directory as the other derived files (grammarWords.ts), named by the ARPA file's path, size
 * and time; written under another name and renamed, so a conversion cut short leaves nothing. Without
 * the tool (or when it fails) the ARPA file is used, as before, and the start's log says why.
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { copyName } from './grammarWords';

/** The converter (sphinxbase-utils); `DICTEE_SPHINX_LM_CONVERT` names another (or `off`: keep ARPA). */
const CONVERT_ENV = 'DICTEE_SPHINX_LM_CONVERT';
const DEFAULT_CONVERTER = 'sphinx_lm_convert';
/** A conversion of the largest model takes ~10 s here; beyond this it is given up (ARPA used). */
const CONVERT_TIMEOUT_MS = 300_000;

interface BinaryLm {
  /** The file the decoder is given: the binary form, or the ARPA file. */
  lm: string;
  /** Why the ARPA file is used (absent when the binary form is). */
  note?: string;
}

function run(cmd: string, args: string[]): Promise<{ code: number | null; error?: string; stderr: string }> {
  return new Promise((resolve) => {
    let stderr = '';
    const child = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), CONVERT_TIMEOUT_MS);
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 64 * 1024) stderr += d.toString();
    });
    child.on('error', (e) => {
      clearTimeout(timer);
      resolve({ code: null, error: e.message, stderr });
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stderr });
    });
  });
}

/** The last ERROR line of sphinxbase's output (no text of the model: its messages name files and counts). */
function lastError(stderr: string): string {
  const lines = stderr.split('\n').filter((l) => l.startsWith('ERROR'));
  return lines.at(-1)?.replace(/^ERROR: "[^"]*", line \d+: /u, '') ?? 'no message';
}

/** The binary form of the ARPA file `arpa` (made now if it is not there yet), else `arpa` with the reason. */
export async function binaryLanguageModel(arpa: string): Promise<BinaryLm> {
  const converter = process.env[CONVERT_ENV] ?? DEFAULT_CONVERTER;
  if (converter === 'off') return { lm: arpa, note: `${CONVERT_ENV}=off` };
  if (!arpa.endsWith('.arpa')) return { lm: arpa }; // already binary (Debian's en-us.lm.bin)
  const out = copyName(arpa, 'binary', 'lm.bin');
  if (existsSync(out)) return { lm: out };
  mkdirSync(path.dirname(out), { recursive: true, mode: 0o700 });
  const part = `${out}.${process.pid}.part`;
  const r = await run(converter, ['-i', arpa, '-ifmt', 'arpa', '-o', part, '-ofmt', 'bin']);
  if (r.code !== 0 || !existsSync(part) || statSync(part).size === 0) {
    rmSync(part, { force: true });
    const why =
      r.error !== undefined
        ? `${converter} cannot be run (${r.error}; apt-get install sphinxbase-utils provides it)`
        : `${converter} failed (${r.code === null ? 'killed' : `exit ${r.code}`}: ${lastError(r.stderr)})`;
    return { lm: arpa, note: `the language model is read as ARPA text, slower to load: ${why}` };
  }
  renameSync(part, out);
  return { lm: out };
}
