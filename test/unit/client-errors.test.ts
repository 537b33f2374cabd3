import assert from 'node:assert/strict';
import {
  DictationError,
  ERROR_ADVICE,
  adviceFor,
  initErrorCause,
  isFatal,
  recogniserUnavailable,
  errorFromClose,
  errorFromHttpRefusal,
  errorFromRequestFailure,
  errorFromServiceMessage,
  errorFromUpgradeRefusal,
  fieldFromMessage,
  retryAfterHeaderMs,
  scrubKey,
  toDictationError,
} from '../../src/client/errors';
import { ERROR_CODES } from '../../src/protocol';

const KEY = `svc_live_${'a'.repeat(40)}`;

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

  it('scrubs every occurrence of the key, by default down to its redacted form', () => {
    assert.equal(scrubKey(`bad ${KEY} and ${KEY}!`, KEY, '[key]'), 'bad [key] and [key]!');
    assert.equal(scrubKey(`bad ${KEY}`, KEY), 'bad svc_live_…aaaa');
    assert.equal(scrubKey('nothing here', '', '[key]'), 'nothing here');
  });

  it('has its own advice for every code, and the documented fatal set', () => {
    const codes = [...ERROR_CODES, 'NETWORK_ERROR', 'TIMEOUT'] as const;
    assert.deepEqual(Object.keys(ERROR_ADVICE).sort(), [...codes].sort(), 'one entry per code, no other');
    const summaries = new Set(codes.map((c) => ERROR_ADVICE[c].summary));
    assert.equal(summaries.size, codes.length, 'no two codes are told the same thing');
    assert.deepEqual(codes.filter((c) => isFatal(c)).sort(), ['AUTH_ERROR', 'CONCURRENCY_LIMIT_EXCEEDED', 'CONFIG_ERROR', 'INIT_ERROR']);
    // A wait named by the service makes an INIT_ERROR (the recogniser is not available now) and a
    // CONCURRENCY_LIMIT_EXCEEDED (its decoders are behind real time) retried.
    assert.deepEqual(codes.filter((c) => isFatal(c, 2000)).sort(), ['AUTH_ERROR', 'CONFIG_ERROR']);
  });

  it('reads what an INIT_ERROR refused from the service message', () => {
    assert.deepEqual(initErrorCause('language fr is not available in the pocketsphinx engine; it serves: en'), {
      kind: 'language',
      language: 'fr',
      served: ['en'],
    });
    assert.deepEqual(initErrorCause('language de is not available in the simulated engine'), { kind: 'language', language: 'de' });
    assert.deepEqual(initErrorCause('sample_rate 44100 Hz is not supported by the pocketsphinx engine; use 16000'), {
      kind: 'sample_rate',
      sampleRate: 44100,
    });
    assert.deepEqual(initErrorCause('encoding "opus" is not supported; the only supported encoding is "pcm_s16le"'), {
      kind: 'encoding',
      encoding: 'opus',
    });
    assert.equal(initErrorCause('something else'), undefined);
  });

  it('the advice names the actual cause of an INIT_ERROR, never an unrelated one', () => {
    const init = (message: string): DictationError => new DictationError({ code: 'INIT_ERROR', message, fatal: true });
    const language = init('language fr is not available in the pocketsphinx engine; it serves: en');
    assert.equal(adviceFor(language), 'The service does not serve the language fr; it serves en.');
    assert.equal(
      adviceFor(language, { languageOption: '--language' }),
      'The service does not serve the language fr; it serves en: run again with --language en.',
    );
    assert.doesNotMatch(adviceFor(language), /Hz|pcm_s16le/);
    const unsaid = init('language de is not available in the simulated engine');
    assert.equal(adviceFor(unsaid, { served: ['fr', 'en'] }), 'The service does not serve the language de; it serves fr, en.');
    assert.match(adviceFor(unsaid), /does not serve the language de: choose a language it serves \(GET \/healthz lists them\)/);
    const rate = adviceFor(init('sample_rate 44100 Hz is not supported by the pocketsphinx engine; use 16000'));
    assert.match(rate, /does not take audio at 44100 Hz/);
    assert.doesNotMatch(rate, /language/);
    assert.match(
      adviceFor(init('encoding "opus" is not supported; the only supported encoding is "pcm_s16le"')),
      /does not take "opus" audio/,
    );
    assert.equal(adviceFor(init('something else')), ERROR_ADVICE.INIT_ERROR.advice);
    const auth = new DictationError({ code: 'AUTH_ERROR', message: 'x', fatal: true });
    assert.equal(adviceFor(auth, { served: ['en'], languageOption: '--language' }), ERROR_ADVICE.AUTH_ERROR.advice);
  });

  it('DictationError carries its fields; withFatal changes only `fatal`', () => {
    const e = new DictationError({ code: 'CONFIG_ERROR', message: 'm', field: 'language', sessionId: 's', fatal: false, status: 400 });
    assert.ok(e instanceof Error);
    assert.equal(e.name, 'DictationError');
    assert.equal(e.retryAfterMs, 0);
    assert.equal(e.field, 'language');
    const f = e.withFatal(true);
    assert.deepEqual([f.code, f.message, f.field, f.sessionId, f.status, f.fatal], ['CONFIG_ERROR', 'm', 'language', 's', 400, true]);
    assert.equal(e.fatal, false, 'the original is unchanged');
  });

  it('anything thrown becomes a DictationError: as it is, or a non-fatal INTERNAL_ERROR with its message', () => {
    const own = new DictationError({ code: 'TIMEOUT', message: 'late', fatal: false });
    assert.equal(toDictationError(own), own);
    const other = toDictationError(new RangeError('out of range'));
    assert.deepEqual([other.code, other.message, other.fatal], ['INTERNAL_ERROR', 'out of range', false]);
  });

  describe('HTTP answers', () => {
    const refusal = (status: number, body: unknown, retryAfterHeader: string | null = null): DictationError =>
      errorFromHttpRefusal({ status, body, retryAfterHeader, url: 'http://h/api/v1/live/sessions' }, KEY);

    it('401 and 403 are fatal AUTH_ERRORs naming the key by its hint only, with the service message scrubbed', () => {
      const e401 = refusal(401, { error: { code: 'AUTH_ERROR', message: `unknown key ${KEY}` } });
      assert.deepEqual([e401.code, e401.status, e401.fatal], ['AUTH_ERROR', 401, true]);
      assert.match(e401.message, /refused the API key svc_live_…aaaa/);
      assert.ok(!e401.message.includes(KEY));
      assert.match(refusal(403, undefined).message, /lacks the permission to open live sessions/);
    });

    it('429: RATE_LIMITED waits retry_after_ms, else Retry-After, else 5 s; CONCURRENCY_LIMIT_EXCEEDED is fatal unless it names a wait', () => {
      assert.equal(refusal(429, { error: { code: 'RATE_LIMITED', message: 'x', retry_after_ms: 1234 } }).retryAfterMs, 1234);
      assert.equal(refusal(429, {}, '7').retryAfterMs, 7000);
      const fallback = refusal(429, 'not json');
      assert.deepEqual([fallback.code, fallback.fatal, fallback.retryAfterMs], ['RATE_LIMITED', false, 5000]);
      assert.match(fallback.message, /retry in 5 s/);
      const c = refusal(429, { error: { code: 'CONCURRENCY_LIMIT_EXCEEDED', message: 'full' } });
      assert.deepEqual([c.code, c.fatal, c.message], ['CONCURRENCY_LIMIT_EXCEEDED', true, 'concurrency limit reached: full']);
      const busy = refusal(429, { error: { code: 'CONCURRENCY_LIMIT_EXCEEDED', message: 'decoding behind', retry_after_ms: 3000 } });
      assert.deepEqual([busy.fatal, busy.retryAfterMs], [false, 3000]);
    });

    it('5xx is a retried INTERNAL_ERROR; any other status a fatal error of the code given, else PROTOCOL_ERROR', () => {
      const e = refusal(503, { error: { message: 'draining' } });
      assert.deepEqual([e.code, e.fatal], ['INTERNAL_ERROR', false]);
      assert.match(e.message, /\(HTTP 503\) at http:\/\/h\/api\/v1\/live\/sessions: draining/);
      assert.equal(refusal(400, { error: { code: 'CONFIG_ERROR', message: 'bad' } }).code, 'CONFIG_ERROR');
      const odd = refusal(418, {});
      assert.deepEqual([odd.code, odd.fatal], ['PROTOCOL_ERROR', true]);
    });

    it('a request without an answer: TIMEOUT when its timeout aborted it, else NETWORK_ERROR with the system error', () => {
      const timeout = errorFromRequestFailure(new DOMException('timed out', 'TimeoutError'), 'http://h/x', KEY, 900);
      assert.deepEqual([timeout.code, timeout.message], ['TIMEOUT', 'no answer from http://h/x within 900 ms']);
      const refused = errorFromRequestFailure(
        new TypeError('fetch failed', { cause: { code: 'ECONNREFUSED' } }),
        `http://h/${KEY}`,
        KEY,
        900,
      );
      assert.equal(refused.code, 'NETWORK_ERROR');
      assert.match(refused.message, /cannot reach the service at http:\/\/h\/svc_live_…aaaa \(ECONNREFUSED\)/);
      assert.match(errorFromRequestFailure('odd', 'http://h', KEY, 1).message, /\(odd\)/);
    });
  });

  it('a refused WebSocket upgrade maps its status; only 401/403 are fatal', () => {
    const auth = errorFromUpgradeRefusal(401, undefined, KEY);
    assert.deepEqual([auth.code, auth.fatal, auth.status], ['AUTH_ERROR', true, 401]);
    assert.match(auth.message, /HTTP 401 \(API key svc_live_…aaaa\)/);
    const busy = errorFromUpgradeRefusal(503, '1', KEY);
    assert.deepEqual([busy.code, busy.fatal, busy.retryAfterMs], ['INTERNAL_ERROR', false, 1000]);
    assert.deepEqual(
      [errorFromUpgradeRefusal(429, null, KEY).code, errorFromUpgradeRefusal(404, null, KEY).code],
      ['RATE_LIMITED', 'NETWORK_ERROR'],
    );
    assert.equal(retryAfterHeaderMs('soon'), 0);
  });

  it('a service `error` message: its code and fatality, the field of a CONFIG_ERROR, the session, the key scrubbed', () => {
    const cfg = errorFromServiceMessage(
      { code: 'CONFIG_ERROR', message: `invalid configuration: silence_threshold must be between 0.2 and 10 (${KEY})` },
      KEY,
      'sess',
    );
    assert.deepEqual([cfg.code, cfg.fatal, cfg.field, cfg.sessionId], ['CONFIG_ERROR', true, 'silence_threshold', 'sess']);
    assert.ok(!cfg.message.includes(KEY));
    assert.equal(errorFromServiceMessage({ code: 'CONFIG_ERROR', message: 'x', field: 'language' }, KEY, undefined).field, 'language');
    const rate = errorFromServiceMessage({ code: 'RATE_LIMITED', message: 'slow', retry_after_ms: 0, session_id: 'own' }, KEY, 'sess');
    assert.deepEqual([rate.retryAfterMs, rate.fatal, rate.sessionId], [5000, false, 'own']);
    // INIT_ERROR is final, unless the service names a wait: its speech recogniser is not available now.
    const down = errorFromServiceMessage(
      {
        code: 'INIT_ERROR',
        message: 'the speech recogniser is not available now (connect ECONNREFUSED); retry after 2000 ms',
        retry_after_ms: 2000,
      },
      KEY,
      'sess',
    );
    assert.deepEqual([down.fatal, down.retryAfterMs, recogniserUnavailable(down)], [false, 2000, true]);
    assert.match(adviceFor(down), /speech recogniser \(another server\) is not available now; Dictée waited and tried again/);
    const language = errorFromServiceMessage({ code: 'INIT_ERROR', message: 'language de is not available', retry_after_ms: 0 }, KEY, 's');
    assert.deepEqual([language.fatal, recogniserUnavailable(language)], [true, false]);
    assert.equal(errorFromServiceMessage({ code: 'INIT_ERROR', message: 'x' }, KEY, 's').fatal, true, 'no retry_after_ms: final');
    assert.equal(errorFromClose(4003, 'INIT_ERROR', 's').fatal, true, 'a close alone names no wait');
    const unknown = errorFromServiceMessage({ code: 'NEW_CODE', message: 'future' }, KEY, undefined);
    assert.deepEqual([unknown.code, unknown.message, unknown.fatal], ['INTERNAL_ERROR', 'NEW_CODE: future', false]);
  });

  it('a close without an error message: fatal when its code stands for a fatal error, else a lost connection', () => {
    const revoked = errorFromClose(4001, 'AUTH_ERROR', 's');
    assert.deepEqual(
      [revoked.code, revoked.fatal, revoked.message],
      ['AUTH_ERROR', true, 'the service closed the connection with code 4001 (AUTH_ERROR)'],
    );
    const lost = errorFromClose(1006, '', 's');
    assert.deepEqual([lost.code, lost.fatal, lost.message], ['NETWORK_ERROR', false, 'connection lost (close code 1006)']);
    assert.deepEqual([errorFromClose(1011, 'boom', 's').code, errorFromClose(1011, 'boom', 's').fatal], ['INTERNAL_ERROR', false]);
  });
});
