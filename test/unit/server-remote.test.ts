import assert from 'node:assert/strict';
import { UsageError, parseArgs, remoteBoundsFromEnv } from '../../src/server/commandLine';
import { RemoteRecognizer } from '../../src/server/engine/remote/remoteRecognizer';
import { authHeader, defaultAuthFor } from '../../src/server/engine/remote/auth';
import { shownUrl, urlProblem } from '../../src/server/engine/remote/upstream';
import { sessionUpdate } from '../../src/server/engine/remote/realtime';

const raw = (ws: Array<{ raw: string }> | undefined): string | undefined => ws?.map((w) => w.raw).join(' ');

describe('remote engines: options', () => {
  it('--engine realtime|vosk needs --engine-url; the remote flags belong to the remote engines', () => {
    assert.throws(
      () => parseArgs(['--engine', 'realtime']),
      (e: unknown) => e instanceof UsageError && /needs --engine-url/.test(e.message),
    );
    assert.throws(() => parseArgs(['--engine-url', 'ws://h/x']), /are for the realtime and vosk engines/);
    assert.throws(
      () => parseArgs(['--engine', 'vosk', '--engine-url', 'ws://h:2700', '--engine-model', 'm']),
      /--engine-model is for the realtime engine/,
    );
    const o = parseArgs([
      '--engine',
      'realtime',
      '--engine-url',
      'wss://gpu/v1/realtime',
      '--engine-model',
      'voxtral',
      '--engine-ca',
      '/ca.pem',
      '--proofread-url',
      'https://gpu/v1/audio/transcriptions',
    ]);
    assert.equal(o.engine, 'realtime');
    assert.equal(o.engineModel, 'voxtral');
    assert.equal(o.engineCa, '/ca.pem');
  });

  it("the key's header: Azure OpenAI's api-key by default for its hosts, else a bearer token; --engine-auth and --proofread-auth choose", () => {
    assert.equal(defaultAuthFor('wss://my-res.openai.azure.com/openai/v1/realtime?model=gpt-4o-transcribe'), 'api-key');
    assert.equal(defaultAuthFor('wss://my-res.cognitiveservices.azure.com/openai/realtime?intent=transcription'), 'api-key');
    assert.equal(defaultAuthFor('https://MY-RES.OPENAI.AZURE.COM./openai/deployments/w/audio/transcriptions'), 'api-key');
    for (const url of ['wss://api.openai.com/v1/realtime', 'wss://openai.azure.com.example.org/v1/realtime', 'ws://gpu:8000/v1/realtime'])
      assert.equal(defaultAuthFor(url), 'bearer', url);
    assert.deepEqual(authHeader('api-key', 'k'), { 'api-key': 'k' });
    assert.deepEqual(authHeader('bearer', 'k'), { Authorization: 'Bearer k' });
    assert.deepEqual(authHeader('api-key', undefined), {}, 'no key, no header');
    const base = ['--engine', 'realtime', '--engine-url', 'wss://gpu/v1/realtime'];
    const o = parseArgs([...base, '--engine-auth', 'api-key', '--proofread-url', 'https://h/t', '--proofread-auth', 'bearer']);
    assert.deepEqual([o.engineAuth, o.proofreadAuth], ['api-key', 'bearer']);
    assert.equal(parseArgs(base).engineAuth, undefined, 'chosen from the URL by the engine');
    assert.throws(() => parseArgs([...base, '--engine-auth', 'basic']), /--engine-auth must be one of bearer, api-key/);
    assert.throws(() => parseArgs([...base, '--proofread-auth', 'api-key']), /--proofread-auth goes with --proofread-url/);
    assert.throws(() => parseArgs(['--engine-auth', 'api-key']), /are for the realtime and vosk engines/);
  });

  it('a credential never goes in a URL, and a URL is shown without query or user', () => {
    assert.match(urlProblem('wss://u:p@h/v1/realtime', '--engine-url')!, /must not carry a user or password/);
    assert.match(urlProblem('wss://h/v1/realtime?api-key=x', '--engine-url')!, /must not carry a credential \(api-key=…\)/);
    assert.match(urlProblem('http://h/', '--engine-url')!, /must start with ws:\/\/ or wss:\/\//);
    assert.equal(urlProblem('wss://h/v1/realtime?intent=transcription', '--engine-url'), undefined);
    assert.equal(shownUrl('wss://h:8000/v1/realtime?intent=transcription#x'), 'wss://h:8000/v1/realtime');
  });

  it('the fault bounds can be shortened through the environment, and only with whole milliseconds', () => {
    assert.deepEqual(remoteBoundsFromEnv({ DICTEE_ENGINE_RECONNECT_MS: '1500', DICTEE_ENGINE_MAX_LAG_MS: '900' }), {
      reconnectMs: 1500,
      maxLagMs: 900,
    });
    assert.throws(() => remoteBoundsFromEnv({ DICTEE_ENGINE_STALL_MS: '1.5' }), /positive whole number/);
  });

  it('session updates: the dialects, the language, keyterms as the OpenAI prompt, server VAD off', () => {
    assert.deepEqual(sessionUpdate('vllm', 'voxtral', 'fr', ['Dupont']), { type: 'session.update', model: 'voxtral', language: 'fr' });
    const ga = sessionUpdate('openai', 'gpt-4o-transcribe', 'fr', ['Dupont', 'IRM']) as {
      session: { audio: { input: Record<string, unknown> } };
    };
    assert.deepEqual(ga.session.audio.input, {
      format: { type: 'audio/pcm', rate: 24000 },
      transcription: { model: 'gpt-4o-transcribe', language: 'fr', prompt: 'Dupont, IRM' },
      turn_detection: null,
    });
    const beta = sessionUpdate('openai-beta', undefined, 'any') as { type: string; session: Record<string, unknown> };
    assert.equal(beta.type, 'transcription_session.update');
    assert.deepEqual(beta.session, { input_audio_format: 'pcm16', input_audio_transcription: {}, turn_detection: null });
  });
});

describe('remote engines: the recogniser the segmenter drives', () => {
  const w = Buffer.alloc(0);

  it('reports the upstream text at the next window, once, and ends utterances with it', () => {
    const r = new RemoteRecognizer('realtime');
    assert.equal(r.push(w), undefined);
    r.upstreamPartial('Hello there');
    assert.equal(raw(r.push(w)), 'Hello there');
    assert.equal(r.push(w), undefined);
    r.upstreamFinal('Hello there, world.');
    assert.equal(raw(r.endUtterance()), 'Hello there, world.');
    assert.deepEqual(r.endUtterance(), []);
  });

  it('auto_punctuation false: the upstream punctuation and sentence capitals taken off, keyterms keep theirs', () => {
    const r = new RemoteRecognizer('realtime', { autoPunctuation: false, keep: new Set(['Dupont']) });
    r.upstreamFinal('Dupont is here. Then, the scan.');
    assert.equal(raw(r.endUtterance()), 'Dupont is here then the scan');
  });

  it('never gives a word twice: an utterance of ours ended inside the upstream one, then its final, then a restart', () => {
    const r = new RemoteRecognizer('vosk');
    r.upstreamPartial('one two three');
    assert.equal(raw(r.endUtterance()), 'one two three'); // our segmenter closed its chunk (duration bound)
    r.upstreamPartial('one two three four');
    assert.equal(raw(r.push(w)), 'four');
    r.upstreamRestart(); // the connection was lost: the upstream will say its open utterance again
    assert.equal(raw(r.push(w)), '');
    r.upstreamPartial('one two three four five');
    assert.equal(raw(r.push(w)), 'four five');
    r.upstreamFinal('one two three four five six');
    assert.equal(raw(r.endUtterance()), 'four five six');
    r.upstreamPartial('seven');
    assert.equal(raw(r.endUtterance()), 'seven');
  });

  it('proofreads the first pass with a capital and a stop, or takes the second pass when there is one', async () => {
    const r = new RemoteRecognizer('realtime');
    r.upstreamFinal('dr Smith said hello');
    const words = r.endUtterance();
    assert.equal(r.endSentence(words, true), 'Dr Smith said hello.');
    const p = new RemoteRecognizer('realtime', { secondPass: async (pcm: Buffer) => `Doctor Smith said hello (${pcm.length} bytes).` });
    p.push(Buffer.alloc(640));
    p.upstreamFinal('dr smith said hello');
    assert.equal(await p.endSentence(p.endUtterance(), true), 'Doctor Smith said hello (640 bytes).');
  });
});
