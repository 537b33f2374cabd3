/**
 * A model's first load by the native library, in a child process: sherpa-onnx ends the whole process
 * (`exit(-1)`, or an abort) on a model it cannot use — a missing metadata key, `<blk>` not the last token,
 * an input of another shape — and a decoder thread cannot catch that. So before the service's threads load
 * a model, a short-lived `node` loads it with the same configuration and decodes a second of silence; if
 * that process does not end well, the start stops with sherpa-onnx's own words (its last lines on stderr).
 * It costs one more load of the model at start (seconds for the 0.6B models).
 */
import { spawn } from 'node:child_process';
import { EngineUnavailableError } from '../engine';

/** The child's program: load the recognizer, decode one second of silence, say ok. Its input: JSON on stdin. */
const PROBE = `
const { id, kind, config } = JSON.parse(require('fs').readFileSync(0, 'utf8'));
const addon = require(id);
const R = kind === 'online' ? addon.OnlineRecognizer : addon.OfflineRecognizer;
if (!R) throw new Error('this sherpa-onnx-node has no ' + kind + ' recognizer');
const r = new R(config);
const s = r.createStream();
s.acceptWaveform({ samples: new Float32Array(16000), sampleRate: 16000 });
if (kind === 'online') { while (r.isReady(s)) r.decode(s); } else r.decode(s);
r.getResult(s);
process.stdout.write('probe-ok');
`;

interface ProbeOptions {
  /** The module the service loads as the addon (addon.ts: `sherpa-onnx-node`, or the test hook). */
  addonId: string;
  timeoutMs?: number;
}

/**
 * Loads `config` in a child process as `kind`'s recognizer and decodes a second of silence. Rejects with
 * an {@link EngineUnavailableError} naming `what` (the model's directory) and why, when the native library
 * refuses it, ends the process, or takes longer than the timeout (default 5 minutes).
 */
export function probeRecognizer(kind: 'online' | 'offline', config: object, what: string, o: ProbeOptions): Promise<void> {
  let id: string;
  try {
    id = require.resolve(o.addonId);
  } catch {
    id = o.addonId;
  }
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', PROBE], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr.on('data', (d: Buffer) => (err = (err + d.toString()).slice(-8192)));
    const timer = setTimeout(() => child.kill('SIGKILL'), o.timeoutMs ?? 300_000);
    child.on('error', (e) => {
      clearTimeout(timer);
      reject(new EngineUnavailableError(`cannot check the model in ${what}: ${e.message}`));
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 && out.includes('probe-ok')) {
        resolve();
        return;
      }
      const how = signal
        ? `was ended by ${signal}${signal === 'SIGKILL' ? ' (too slow, or out of memory)' : ''}`
        : `exited with code ${code}`;
      reject(new EngineUnavailableError(`sherpa-onnx cannot use the model in ${what}: loading it ${how}${why(err)}`));
    });
    child.stdin.end(JSON.stringify({ id, kind, config }));
  });
}

/** sherpa-onnx's own reason: the last few lines it wrote (its messages name metadata keys and files, never audio). */
function why(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !/^at |^node:internal|^\^|^Node\.js v/.test(l));
  const last = lines.slice(-3).join(' | ').slice(0, 600);
  return last ? ` (${last})` : '';
}
