import assert from 'node:assert/strict';
import * as dictation from '../../src/dictation';
import {
  parseClientMessage,
  resolveConfig,
  redactUrl,
  redactKey,
  looksLikeApiKey,
  closeCodeFor,
  errorCodeForClose,
  ERROR_CODES,
  LANGUAGES,
  SPECIALTIES,
  RETRY,
  isRetried,
  leastRetryWaitMs,
} from '../../src/protocol';

describe('protocol: client messages', () => {
  const bad: Array<[string, string, RegExp]> = [
    ['not json', 'PROTOCOL_ERROR', /malformed JSON/],
    ['[]', 'PROTOCOL_ERROR', /JSON object/],
    ['{"type":1}', 'PROTOCOL_ERROR', /string "type"/],
    ['{"type":"hello"}', 'PROTOCOL_ERROR', /unknown message type "hello"/],
    ['{"type":"control","action":"rewind"}', 'PROTOCOL_ERROR', /action must be one of/],
    ['{"type":"configure","config":{"colour":"red"}}', 'CONFIG_ERROR', /unknown field colour/],
    ['{"type":"configure","config":{"language":"it"}}', 'CONFIG_ERROR', /language must be one of fr, en, es, de/],
    ['{"type":"configure","config":{"silence_threshold":"2"}}', 'CONFIG_ERROR', /silence_threshold must be a number/],
    ['{"type":"configure","config":{"silence_threshold":100}}', 'CONFIG_ERROR', /silence_threshold must be between/],
    ['{"type":"configure","config":{"max_buffer_size":2.5}}', 'CONFIG_ERROR', /max_buffer_size must be an integer/],
    ['{"type":"configure","config":{"sample_rate":1000}}', 'CONFIG_ERROR', /sample_rate must be between/],
    ['{"type":"configure","config":{"enable_final_proofreading":"yes"}}', 'CONFIG_ERROR', /enable_final_proofreading must be a boolean/],
    ['{"type":"configure","config":{"resume":{"session_id":"x"}}}', 'CONFIG_ERROR', /resume\.last_seq/],
    ['{"type":"configure","config":[]}', 'CONFIG_ERROR', /config must be an object/],
    [
      JSON.stringify({ type: 'configure', config: { keyterms: Array.from({ length: 101 }, (_, i) => `term ${i}`) } }),
      'CONFIG_ERROR',
      /keyterms holds at most 100 terms/,
    ],
    [JSON.stringify({ type: 'configure', config: { keyterms: ['x'.repeat(51)] } }), 'CONFIG_ERROR', /a term has at most 50 characters/],
    ['{"type":"configure","config":{"keyterms":["ok","  "]}}', 'CONFIG_ERROR', /must not hold an empty term/],
    ['{"type":"configure","config":{"keyterms":"Doliprane"}}', 'CONFIG_ERROR', /keyterms must be an array of strings/],
    ['{"type":"configure","config":{"keyterms":[7]}}', 'CONFIG_ERROR', /keyterms must hold strings/],
    ['{"type":"configure","config":{"auto_punctuation":"off"}}', 'CONFIG_ERROR', /auto_punctuation must be a boolean/],
  ];
  for (const [text, code, message] of bad) {
    it(`rejects ${text} with ${code}`, () => {
      const r = parseClientMessage(text);
      assert.equal(r.ok, false);
      if (r.ok) return;
      assert.equal(r.code, code);
      assert.match(r.message, message);
    });
  }

  it('keyterms: 100 terms of 50 characters (counted as characters, not UTF-16 units) are accepted; the field is named', () => {
    const terms = Array.from({ length: 100 }, (_, i) => `${'é'.repeat(47)}${String(i).padStart(3, '0')}`);
    const ok = parseClientMessage(JSON.stringify({ type: 'configure', config: { keyterms: terms, auto_punctuation: false } }));
    assert.ok(ok.ok, JSON.stringify(ok));
    assert.ok(parseClientMessage(JSON.stringify({ type: 'configure', config: { keyterms: ['🩺'.repeat(50)] } })).ok);
    const r = parseClientMessage(JSON.stringify({ type: 'configure', config: { keyterms: ['a', 'b'.repeat(51)] } }));
    assert.ok(!r.ok && r.field === 'config.keyterms.1', JSON.stringify(r));
  });

  it('names the offending field', () => {
    const r = parseClientMessage('{"type":"configure","config":{"flush_timeout":-1}}');
    assert.ok(!r.ok && r.field === 'config.flush_timeout', JSON.stringify(r));
  });

  it('accepts a full configure and an empty one', () => {
    const full = parseClientMessage(
      JSON.stringify({
        type: 'configure',
        config: { language: 'en', specialty: 'radiology', sample_rate: 16000, encoding: 'pcm_s16le', preset: 'low_latency', stop_delay: 1 },
      }),
    );
    assert.ok(full.ok);
    assert.ok(parseClientMessage('{"type":"configure"}').ok);
    assert.ok(parseClientMessage('{"type":"control","action":"pause","extra":1}').ok);
  });
});

describe('protocol: configuration', () => {
  it('uses the spec defaults', () => {
    const c = resolveConfig({});
    assert.deepEqual(
      [
        c.language,
        c.specialty,
        c.audio_duration_threshold,
        c.silence_threshold,
        c.max_buffer_size,
        c.flush_timeout,
        c.engine_endpointing,
        c.enable_final_proofreading,
        c.stop_delay,
      ],
      ['fr', 'general', 15, 2, 5, 3, 0.5, true, 2],
    );
    assert.equal(c.keyterms, undefined, 'no keyterms unless sent');
    assert.equal(c.auto_punctuation, undefined, 'the model keeps its punctuation unless told otherwise');
  });
  it('keeps keyterms and auto_punctuation as sent (a copy of the list)', () => {
    const keyterms = ['Doliprane', 'scanner thoracique'];
    const c = resolveConfig({ keyterms, auto_punctuation: false });
    assert.deepEqual(c.keyterms, keyterms);
    assert.notEqual(c.keyterms, keyterms);
    assert.equal(c.auto_punctuation, false);
  });
  it('applies a preset under explicit fields', () => {
    const c = resolveConfig({ preset: 'low_latency', silence_threshold: 3 });
    assert.equal(c.engine_endpointing, 0.3);
    assert.equal(c.silence_threshold, 3);
  });
  it('takes the languages and specialties the dictation grammar has: one list (src/shared/vocabulary.ts)', () => {
    assert.equal(LANGUAGES, dictation.LANGUAGES);
    assert.equal(SPECIALTIES, dictation.SPECIALTIES);
    assert.deepEqual([...LANGUAGES], ['fr', 'en', 'es', 'de']);
  });
  it('rejects endpointing not shorter than the sentence pause', () => {
    assert.throws(() => resolveConfig({ engine_endpointing: 2, silence_threshold: 1 }), /engine_endpointing \(2 s\) must be shorter/);
  });
});

describe('protocol: secrets and codes', () => {
  it('redacts tokens in URLs', () => {
    assert.equal(redactUrl('/api/v1/audio/live?x=1&token=svc_live_abc&y=2'), '/api/v1/audio/live?x=1&token=[redacted]&y=2');
  });
  it('redacts from the decoded query and path, not from the raw text', () => {
    const k = 'svc_live_' + 'Ab3_'.repeat(10) + 'wxyz';
    const enc = (s: string): string => s.replace(/./g, (c) => `%${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
    // Encoded parameter names and values, any case, doubled encoding, + for spaces, no '='.
    assert.equal(redactUrl(`/live?tok%65n=%73${k.slice(1)}`), '/live?tok%65n=[redacted]');
    assert.equal(redactUrl(`/live?TOKEN=abc&%54oken=def`), '/live?TOKEN=[redacted]&%54oken=[redacted]');
    assert.equal(redactUrl(`/live?a=${enc(enc(k))}&b=2`), '/live?[redacted]&b=2');
    assert.equal(redactUrl(`/live?note=hello+${k}`), '/live?[redacted]');
    assert.equal(redactUrl(`/live?${k}`), '/live?[redacted]');
    assert.equal(redactUrl(`/live?x=1#token=${k}`), '/live?x=1');
    // A key as a path segment, encoded or not, becomes its hint; a malformed escape does not throw.
    assert.equal(redactUrl(`/v1/api-keys/%73${k.slice(1)}`), '/v1/api-keys/svc_live_…wxyz');
    assert.equal(redactUrl(`/v1/api-keys/${k}?x=%zz`), '/v1/api-keys/svc_live_…wxyz?x=%zz');
    assert.equal(redactUrl('/v1/sessions/%E0%A4%A'), '/v1/sessions/%E0%A4%A');
    assert.equal(redactUrl('/v1/sessions/msk_abcdefgh1234'), '/v1/sessions/msk_…');
    for (const u of [`/x?token=${k}`, `/x/${enc(k)}`, `/x?q=${encodeURIComponent(k)}`])
      assert.ok(!redactUrl(u).includes(k.slice(9, 30)), u);
  });
  it('redacts keys to prefix and last four', () => {
    const k = 'svc_live_' + 'a'.repeat(36) + 'wxyz';
    assert.equal(redactKey(k), 'svc_live_…wxyz');
    assert.ok(looksLikeApiKey(k));
    assert.ok(!looksLikeApiKey('svc_live_short'));
  });
  it('maps every error code to a distinct close code and back', () => {
    const closes = new Set(ERROR_CODES.map(closeCodeFor));
    assert.equal(closes.size, ERROR_CODES.length);
    for (const c of ERROR_CODES) assert.equal(errorCodeForClose(closeCodeFor(c)), c);
  });
  it('has one retry table: every code, at the session init and on a connection', () => {
    const retried = (stage: 'init' | 'connection'): string[] =>
      (Object.keys(RETRY) as Array<keyof typeof RETRY>).filter((c) => isRetried(c, stage)).sort();
    assert.deepEqual(Object.keys(RETRY).sort(), [...ERROR_CODES, 'NETWORK_ERROR', 'TIMEOUT'].sort(), 'one row per code, no other');
    // A connection that ends with any other code ends the run: the user must act (CONCURRENCY_LIMIT_EXCEEDED included).
    assert.deepEqual(retried('connection'), [
      'INTERNAL_ERROR',
      'NETWORK_ERROR',
      'PROTOCOL_ERROR',
      'RATE_LIMITED',
      'SESSION_IDLE',
      'TIMEOUT',
    ]);
    // At the session init only what the service gets over by itself.
    assert.deepEqual(retried('init'), ['INTERNAL_ERROR', 'RATE_LIMITED', 'TIMEOUT']);
    // INIT_ERROR is final (the spec) unless the service names a wait (our additive retry_after_ms): the
    // recogniser is not available now; then it is retried, after at least that wait.
    assert.deepEqual([isRetried('INIT_ERROR', 'connection', 2000), isRetried('INIT_ERROR', 'init', 2000)], [true, true]);
    assert.deepEqual([isRetried('INIT_ERROR', 'connection', 0), isRetried('CONFIG_ERROR', 'connection', 2000)], [false, false]);
    assert.deepEqual(
      [leastRetryWaitMs('INIT_ERROR', 2000), leastRetryWaitMs('RATE_LIMITED', 0), leastRetryWaitMs('RATE_LIMITED', 700)],
      [2000, 5000, 700],
    );
    assert.equal(leastRetryWaitMs('INTERNAL_ERROR', 2000), 0, 'only the backoff for the others');
  });
});
