import assert from 'node:assert/strict';
import { DictationError } from '../../src/client/errors';
import { Resumption } from '../../src/client/resumption';

describe('client: Resumption (which service session a run is in)', () => {
  it('asks to resume the session it has, from the last seq received; a resumed session keeps its generation', () => {
    const r = new Resumption();
    r.initialised('init-1');
    assert.equal(r.sessionId, 'init-1');
    assert.equal(r.nextResume(), undefined, 'nothing to resume before the first configured');
    assert.deepEqual(r.configured({ session_id: 's1' }), {
      requestedResume: false,
      resumed: false,
      newGeneration: false,
      previousSessionId: undefined,
    });
    r.received(3);
    r.received(2);
    assert.deepEqual(r.nextResume(), { session_id: 's1', last_seq: 3 });
    assert.deepEqual(r.configured({ session_id: 's1', resumed: true }), {
      requestedResume: true,
      resumed: true,
      newGeneration: false,
      previousSessionId: 's1',
    });
    assert.equal(r.generation, 0);
  });

  it('a configured that does not continue the session starts a new generation and forgets the seq', () => {
    const r = new Resumption();
    r.configured({ session_id: 's1' });
    r.received(9);
    r.nextResume();
    const o = r.configured({ session_id: 's2', resumed: false });
    assert.deepEqual(o, { requestedResume: true, resumed: false, newGeneration: true, previousSessionId: 's1' });
    assert.equal(r.generation, 1);
    assert.equal(r.lastSeq, undefined);
    assert.equal(r.sessionId, 's2');
    // `resumed: true` for another session id is not a resumption either.
    r.nextResume();
    assert.equal(r.configured({ session_id: 's3', resumed: true }).newGeneration, true);
  });

  it('a session ended by the service once is resumed; ended twice in a row, the run moves to a new session', () => {
    const r = new Resumption();
    r.configured({ session_id: 's1' });
    assert.equal(r.endedByService(), false);
    assert.deepEqual(r.nextResume(), { session_id: 's1', last_seq: 0 });
    r.configured({ session_id: 's1', resumed: true });
    assert.equal(r.endedByService(), true);
    assert.equal(r.nextResume(), undefined, 'a new session is asked for');
    assert.equal(r.configured({ session_id: 's2' }).newGeneration, true);
    assert.equal(r.endedByService(), false, 'the count starts again in the new session');
  });

  it('a CONFIG_ERROR about resume, before configured, means the service has no resume: new sessions from then on', () => {
    const r = new Resumption();
    r.configured({ session_id: 's1' });
    const about = new DictationError({ code: 'CONFIG_ERROR', message: 'invalid configuration: unknown field resume', fatal: true });
    const other = new DictationError({
      code: 'CONFIG_ERROR',
      message: 'silence_threshold must be…',
      field: 'silence_threshold',
      fatal: true,
    });
    assert.equal(r.refusesResume(about, false), false, 'no resume was asked for on this connection');
    r.nextResume();
    assert.equal(r.refusesResume(other, false), false);
    assert.equal(r.refusesResume(about, true), false, 'after configured it is not about the resume');
    assert.equal(r.refusesResume(about, false), true);
    assert.equal(r.nextResume(), undefined);
  });
});
