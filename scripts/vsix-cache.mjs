// Whether `npm start` must package the extension again: the .vsix is made again only when a file that
// goes into it, or that its bundle is built from, changed since it was made (a SHA-256 of their paths and
// contents), or when the .vsix itself is not the one made then. The inputs are counted generously (all of
// src/, the lock file): a change that could alter the package repackages it; nothing else does.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** What the .vsix is made of (see .vscodeignore) and what its bundle (dist/extension.js, esbuild.mjs) is built from. */
const INPUTS = [
  'package.json',
  'package-lock.json',
  '.vscodeignore',
  'esbuild.mjs',
  'tsconfig.json',
  'README.md',
  'CHANGELOG.md',
  'LICENSE',
  'l10n',
  'media',
  'templates',
  'src',
  'node_modules/node-record-lpcm16',
];

/** Every input file under `root`, relative, sorted (package.nls*.json included). */
export function packageInputs(root) {
  const out = [];
  const walk = (rel) => {
    const abs = path.join(root, rel);
    if (!existsSync(abs)) return;
    if (statSync(abs).isDirectory()) {
      for (const e of readdirSync(abs).sort()) walk(path.posix.join(rel, e));
    } else out.push(rel);
  };
  for (const f of readdirSync(root)
    .filter((f) => /^package\.nls(\.[\w-]+)?\.json$/u.test(f))
    .sort())
    out.push(f);
  for (const i of INPUTS) walk(i);
  return out.sort();
}

/** The SHA-256 of the inputs' paths and contents. */
export function inputsHash(root) {
  const h = createHash('sha256');
  for (const f of packageInputs(root)) {
    h.update(`${f}\0`);
    h.update(readFileSync(path.join(root, f)));
    h.update('\0');
  }
  return h.digest('hex');
}

const fileHash = (file) => createHash('sha256').update(readFileSync(file)).digest('hex');

/**
 * Whether `vsix` is the package of the inputs as they are now, as `stampFile` (written by recordVsix)
 * says. `hash`: the inputs' hash, to record once packaged; `why`: what changed, for the log.
 */
export function vsixUpToDate(root, vsix, stampFile) {
  const hash = inputsHash(root);
  if (!existsSync(vsix)) return { upToDate: false, hash, why: 'no package yet' };
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(stampFile, 'utf8'));
  } catch {
    return { upToDate: false, hash, why: 'no record of what the package was made from' };
  }
  if (stamp.inputs !== hash) return { upToDate: false, hash, why: 'its inputs changed' };
  if (stamp.vsix !== fileHash(vsix)) return { upToDate: false, hash, why: 'the package is not the one made then' };
  return { upToDate: true, hash, why: 'its inputs are unchanged' };
}

/** Records that `vsix` was made from inputs of hash `hash`. */
export function recordVsix(vsix, stampFile, hash) {
  mkdirSync(path.dirname(stampFile), { recursive: true });
  writeFileSync(stampFile, `${JSON.stringify({ inputs: hash, vsix: fileHash(vsix) })}\n`);
}
