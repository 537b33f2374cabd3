/**
 * The segmenter's state before each window (where a `first-word` chunk would open) with an engine that
 * releases words only on voiced windows (`releasesOnlyWhenVoiced`, the simulated engine): taken only once a
 * window is known voiced, not for every window of a pause, and the same as when taken before every window.
 */
import assert from 'node:assert/strict';
import { resolveConfig } from '../../src/protocol';
import { SimulatedEngine, SimulatedRecognizer } from '../../src/server/engine/simulated';
import { type SegmentEvent, Segmenter } from '../../src/server/engine/segmenter';
import { framesOf, silence, tone } from '../helpers/speech';

const SCRIPT = 'Alpha, beta. Gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau.';
const cfg = resolveConfig({ engine_endpointing: 0.3, silence_threshold: 1, details: true });

/** The simulated recognizer, counting its checkpoints; `eager`: as an engine that may release words in a pause. */
function recognizer(eager: boolean): SimulatedRecognizer & { checkpoints: number } {
  const r = new SimulatedEngine(SCRIPT).create(cfg) as SimulatedRecognizer & { checkpoints: number };
  const checkpoint = r.checkpoint.bind(r);
  r.checkpoints = 0;
  r.checkpoint = () => {
    r.checkpoints++;
    return checkpoint();
  };
  if (eager) Object.defineProperty(r, 'releasesOnlyWhenVoiced', { value: false });
  return r;
}

function run(eager: boolean, parts: Buffer[]): { events: SegmentEvent[]; end: unknown; rec: ReturnType<typeof recognizer> } {
  let id = 0;
  const rec = recognizer(eager);
  const seg = new Segmenter(cfg, rec, { newId: () => `c${++id}` });
  const events: SegmentEvent[] = [];
  for (const p of parts) for (const f of framesOf(p)) events.push(...seg.push(f));
  events.push(...seg.flush({ proofread: true }));
  return { events, end: seg.checkpoint(), rec };
}

describe('server segmenter: the state before a window in a pause', () => {
  // Tones of several lengths and levels, pauses shorter and longer than engine_endpointing and silence_threshold.
  const audio = [
    silence(500),
    tone(1300),
    silence(200),
    tone(700, 16000, 440, 3000),
    silence(400),
    tone(900),
    silence(1500),
    tone(620, 16000, 330, 12000),
    silence(2600),
    tone(1000),
    silence(100),
  ];

  it('gives the same events, checkpoints and chunk starts as an engine whose state is taken before every window', () => {
    const deferred = run(false, audio);
    const eager = run(true, audio);
    assert.ok(deferred.events.length >= 10, `${deferred.events.length} events`);
    assert.deepEqual(JSON.parse(JSON.stringify(deferred.events)), JSON.parse(JSON.stringify(eager.events)));
    assert.deepEqual(deferred.end, eager.end);
  });

  it('takes no checkpoint of the engine during a pause with no chunk open', () => {
    const deferred = run(false, [tone(1300), silence(1100)]);
    const eager = run(true, [tone(1300), silence(1100)]);
    const before = { deferred: deferred.rec.checkpoints, eager: eager.rec.checkpoints };
    for (const r of [deferred, eager]) {
      const seg = new Segmenter(cfg, r.rec, { restore: JSON.parse(JSON.stringify(r.end)) });
      for (const f of framesOf(silence(2000))) assert.deepEqual(seg.push(f), []);
    }
    // 2 s of pause: 100 windows. Once: the restored segmenter's first window marks where an utterance starts.
    assert.equal(deferred.rec.checkpoints - before.deferred, 1);
    assert.equal(eager.rec.checkpoints - before.eager, 100);
  });

  it('resumes from a checkpoint taken in a pause as from one taken before every window', () => {
    for (const eager of [false, true]) {
      const first = run(eager, [tone(1300), silence(1100), tone(100, 16000, 440, 100)]);
      const again = new Segmenter(cfg, recognizer(eager), { restore: JSON.parse(JSON.stringify(first.end)), newId: () => 'r' });
      const words = framesOf(tone(1000)).flatMap((f) => again.push(f));
      assert.deepEqual(
        words.map((e) => (e.type === 'transcript' ? e.text : '')),
        ['epsilon', 'epsilon zeta', 'epsilon zeta eta'], // 1.3 s of tone released alpha … delta
        eager ? 'eager' : 'deferred',
      );
    }
  });
});
