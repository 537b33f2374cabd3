import assert from 'node:assert/strict';
import { parseArgs } from '../../src/client/cli';
import { checkServiceFormat, parseWav, WavFormatError } from '../../src/client/wav';

function wav(
  opts: { format?: number; channels?: number; rate?: number; bits?: number; data?: Buffer; extraChunk?: boolean; dataSize?: number } = {},
): Buffer {
  const data = opts.data ?? Buffer.from([1, 0, 2, 0, 3, 0]);
  const fmt = Buffer.alloc(24);
  fmt.write('fmt ', 0, 'ascii');
  fmt.writeUInt32LE(16, 4);
  fmt.writeUInt16LE(opts.format ?? 1, 8);
  fmt.writeUInt16LE(opts.channels ?? 1, 10);
  fmt.writeUInt32LE(opts.rate ?? 16000, 12);
  fmt.writeUInt32LE((opts.rate ?? 16000) * 2, 16);
  fmt.writeUInt16LE(2, 20);
  fmt.writeUInt16LE(opts.bits ?? 16, 22);
  const extra = opts.extraChunk
    ? Buffer.concat([Buffer.from('LIST', 'ascii'), Buffer.from([3, 0, 0, 0]), Buffer.from([9, 9, 9, 0])])
    : Buffer.alloc(0);
  const dh = Buffer.alloc(8);
  dh.write('data', 0, 'ascii');
  dh.writeUInt32LE(opts.dataSize ?? data.length, 4);
  const body = Buffer.concat([Buffer.from('WAVE', 'ascii'), fmt, extra, dh, data]);
  const riff = Buffer.alloc(8);
  riff.write('RIFF', 0, 'ascii');
  riff.writeUInt32LE(body.length, 4);
  return Buffer.concat([riff, body]);
}

describe('client: WAV reader', () => {
  it('reads a 16 kHz mono s16le file', () => {
    const w = parseWav(wav());
    assert.equal(w.sampleRate, 16000);
    assert.equal(w.channels, 1);
    assert.equal(w.bitsPerSample, 16);
    assert.deepEqual(w.data, Buffer.from([1, 0, 2, 0, 3, 0]));
    checkServiceFormat(w, 'a.wav');
  });

  it('skips other chunks, with their odd-size padding', () => {
    assert.deepEqual(parseWav(wav({ extraChunk: true })).data, Buffer.from([1, 0, 2, 0, 3, 0]));
  });

  it('takes the rest of the file for a streamed WAV (data size 0 or 0xFFFFFFFF)', () => {
    assert.equal(parseWav(wav({ dataSize: 0xffffffff })).data.length, 6);
    assert.equal(parseWav(wav({ dataSize: 0 })).data.length, 6);
  });

  it('rejects what is not a WAV file', () => {
    assert.throws(() => parseWav(Buffer.from('hello world, not a wav')), /not a WAV file/);
    assert.throws(() => parseWav(Buffer.alloc(4)), WavFormatError);
  });

  it('names every format problem and gives the sox command to convert', () => {
    const w = parseWav(wav({ channels: 2, rate: 44100, bits: 24 }));
    assert.throws(
      () => checkServiceFormat(w, 'dict.wav'),
      (e: Error) =>
        /24-bit samples instead of 16-bit/.test(e.message) &&
        /2 channels instead of 1/.test(e.message) &&
        /44100 Hz instead of 16000 Hz/.test(e.message) &&
        /sox "dict\.wav" -r 16000 -c 1 -b 16 -e signed-integer "dict-16k-mono\.wav"/.test(e.message),
    );
    assert.throws(() => checkServiceFormat(parseWav(wav({ format: 3 })), 'f.wav'), /not PCM \(format tag 3\)/);
    assert.throws(
      () => checkServiceFormat(parseWav(wav({ channels: 2 })), 'f.wav'),
      (e: Error) => e.message.startsWith('2 channels instead of 1. '),
      'the caller names the file: the message does not',
    );
  });
});

describe('client: example client arguments', () => {
  it('parses the documented options', () => {
    const o = parseArgs(
      ['f.wav', '--server', 'http://h:1', '--language', 'en', '--specialty', 'radiology', '--preset', 'low_latency', '--fast'],
      {},
    );
    assert.deepEqual(o, {
      file: 'f.wav',
      server: 'http://h:1',
      serverWhy: '--server',
      config: { language: 'en', specialty: 'radiology', preset: 'low_latency' },
      realtime: false,
      verbose: false,
      help: false,
    });
    assert.equal(parseArgs(['f.wav'], { DICTEE_SERVER_URL: 'http://x:2' }).server, 'http://x:2');
    assert.equal(parseArgs(['f.wav'], {}, () => undefined).server, 'http://127.0.0.1:8787');
    assert.equal(parseArgs(['f.wav', '--fast', '--realtime'], {}).realtime, true);
    assert.equal(parseArgs(['--realtime', 'f.wav', '--fast'], {}).realtime, false, 'the last of --realtime and --fast wins');
    assert.equal(parseArgs(['-h'], {}).help, true);
  });

  it('rejects bad arguments with a specific message', () => {
    assert.throws(() => parseArgs([], {}), /an audio file is required/);
    assert.throws(() => parseArgs(['f.wav', '--language', 'it'], {}), /--language must be one of fr, en, es, de \(got "it"\)/);
    assert.throws(() => parseArgs(['f.wav', '--server'], {}), /--server needs a value/);
    assert.throws(() => parseArgs(['f.wav', '--colour'], {}), /unknown option "--colour"/);
    assert.throws(() => parseArgs(['a.wav', 'b.wav'], {}), /only one file/);
  });
});
