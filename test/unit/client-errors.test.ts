import assert from 'node:assert/strict';
import { DictationError, ERROR_ADVICE, FATAL_CODES, fieldFromMessage, scrubKey } from '../../src/client/errors';
import { ERROR_CODES } from '../../src/protocol';

describe('client: errors', () => {
  it('finds the configuration field a CONFIG_ERROR message is about', () => {
    const cases: Array<[string, string | undefined]> = [
      ['invalid configuration: silence_threshold must be between 0.2 and 10', 'silence_threshold'],
      ['invalid configuration: unknown field colour', 'colour'],
      ['invalid configuration: config.language: language must be one of fr, en, es, de', 'language'],
      ['engine_endpointing (3 s) must be shorter than silence_threshold (2 s)', 'engine_endpointing'],
      ['invalid configuration: resume.last_seq must be an integer', 'resume.last_seq'],
      ['invalid configuration: max_buffer_size must be an integer', 'max_buffer_size'],
      ['something else entirely', undefined],
    ];
    for (const [message, field] of cases) assert.equal(fieldFromMessage(message), field, message);
  });

  it('scrubs every occurrence of the key', () => {
    const key = `svc_live_${'a'.repeat(40)}`;
    assert.equal(scrubKey(`bad ${key} and ${key}!`, key, '[key]'), 'bad [key] and [key]!');
    assert.equal(scrubKey('nothing here', '', '[key]'), 'nothing here');
  });

  it('has advice for every code and the documented fatal set', () => {
    for (const c of [...ERROR_CODES, 'NETWORK_ERROR', 'TIMEOUT'] as const) assert.ok(ERROR_ADVICE[c].length > 20, c);
    assert.deepEqual([...FATAL_CODES].sort(), ['AUTH_ERROR', 'CONCURRENCY_LIMIT_EXCEEDED', 'CONFIG_ERROR', 'INIT_ERROR']);
  });

  it('DictationError carries its fields', () => {
    const e = new DictationError({ code: 'CONFIG_ERROR', message: 'm', field: 'language', sessionId: 's', fatal: true });
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'DictationError');
    assert.equal(e.retryAfterMs, 0);
    assert.equal(e.field, 'language');
  });
});
