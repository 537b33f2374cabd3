/**
 * Run by node (through tsx) as a process of its own: `THREADS` worker threads each load and run
 * `EACH` pocketsphinx decoders (Debian's en-us model) at the same time, as a service's decoder and
 * proofreading threads do at its start. Prints one line and exits 0 when every thread is done; a crash
 * of the library ends the process with its signal. Used by test/integration/pocketsphinx-recognizer.test.ts.
 */
import { Worker, isMainThread, parentPort, workerData } from 'node:worker_threads';
import { DEFAULT_POCKETSPHINX_MODEL, loadPocketsphinx, pocketsphinxModel } from '../../src/server/engine/pocketsphinx/ffi';

const THREADS = 4;
const EACH = 5;

if (isMainThread) {
  let done = 0;
  for (let t = 0; t < THREADS; t++) {
    const w = new Worker(`require(${JSON.stringify(require.resolve('tsx/cjs'))}); require(${JSON.stringify(__filename)});`, {
      eval: true,
      workerData: { each: EACH },
    });
    w.on('message', (m: string) => {
      if (m !== 'done') return;
      if (++done === THREADS) {
        console.log(`${THREADS} threads × ${EACH} decoders loaded and run; library log off: ${loadPocketsphinx().libraryLogOff()}`);
        process.exit(0);
      }
    });
    w.on('error', (e) => {
      console.error(e);
      process.exit(1);
    });
  }
} else {
  const ps = loadPocketsphinx();
  const model = pocketsphinxModel(DEFAULT_POCKETSPHINX_MODEL);
  const noise = new Int16Array(16000).map((_, i) => Math.round(Math.sin(i / 7) * 2000));
  for (let i = 0; i < (workerData as { each: number }).each; i++) {
    const d = ps.init(model, i % 2 ? { proofread: true } : { live: true });
    ps.startUtt(d);
    ps.processRaw(d, noise, true);
    ps.endUtt(d);
    ps.hyp(d);
    ps.free(d);
  }
  parentPort!.postMessage('done');
}
