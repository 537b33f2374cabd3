/**
 * The microphone list from a real PulseAudio daemon (pactl), and audio files decoded by real sox: WAV,
 * FLAC, MP3 and OGG made from recorded speech, read as fast as the consumer takes them.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { listInputDevices } from '../../src/audio/devices';
import { AudioFileError, AudioFileSource, audioFileSeconds } from '../../src/audio/fileSource';
import { rmsDbfs } from '../../src/audio/level';
import { startVirtualMic, TEST_MIC_SOURCE, type VirtualMic } from '../e2e/lib/pulse';
import { speechPcm } from '../helpers/speech';

describe('audio: input devices (pactl) and audio files (sox)', function () {
  this.timeout(60_000);
  let mic: VirtualMic;
  let dir: string;
  before(async () => {
    mic = await startVirtualMic();
    dir = mkdtempSync(path.join(os.tmpdir(), 'dictee-files-'));
  });
  after(async () => {
    await mic?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('lists the PulseAudio sources: the virtual microphone among the microphones, the monitor as a monitor and the default', async () => {
    const env = { ...process.env, ...mic.env };
    const listing = await listInputDevices('sox', 'linux', env);
    assert.equal(listing.problem, undefined);
    const test = listing.devices.find((d) => d.id === TEST_MIC_SOURCE);
    assert.ok(test && !test.isMonitor, JSON.stringify(listing.devices));
    const monitor = listing.devices.find((d) => d.id === 'virtmic.monitor');
    assert.ok(monitor?.isMonitor && monitor.isDefault, JSON.stringify(listing.devices));
    assert.equal(listing.devices.indexOf(test), 0, 'microphones come before monitors');
  });

  it('says plainly when no sound server answers', async () => {
    const listing = await listInputDevices('sox', 'linux', { ...process.env, PULSE_SERVER: `unix:${path.join(dir, 'nothing-here')}` });
    assert.deepEqual(listing.devices, []);
    assert.equal(listing.problem, 'noSoundServer');
  });

  for (const ext of ['wav', 'flac', 'mp3', 'ogg']) {
    it(`decodes a ${ext.toUpperCase()} file to 16 kHz mono PCM, only as fast as it is taken`, async () => {
      const pcm = await speechPcm(
        'The lungs are clear. No pleural effusion. The heart size is within normal limits. The mediastinum is not widened. Bones and soft tissues are unremarkable.',
      );
      const raw = path.join(dir, 'speech.raw');
      writeFileSync(raw, pcm);
      // The file at 44.1 kHz stereo, as a recorder would make it.
      const file = path.join(dir, `speech.${ext}`);
      const r = spawnSync(
        'sox',
        ['-t', 'raw', '-r', '16000', '-e', 'signed-integer', '-b', '16', '-c', '1', raw, '-r', '44100', '-c', '2', file],
        { encoding: 'utf8' },
      );
      assert.equal(r.status, 0, r.stderr);
      const seconds = await audioFileSeconds(file);
      assert.ok(seconds && Math.abs(seconds - pcm.length / 32000) < 0.2, `duration ${seconds}`);
      let taking = false;
      const chunks: Buffer[] = [];
      let refusedBytes = 0;
      const src = new AudioFileSource(file, 16000, () => taking, 10);
      src.on('data', (c) => {
        if (!taking) refusedBytes += c.length;
        chunks.push(c);
      });
      const done = new Promise<void>((resolve, reject) => {
        src.on('end', () => resolve());
        src.on('error', reject);
      });
      src.start();
      try {
        await new Promise((r) => setTimeout(r, 300));
        // The consumer refused: what the pipe held came (at most two reads of it), then the decoder waited.
        assert.ok(
          refusedBytes <= 2 * 65536 && refusedBytes < pcm.length / 2,
          `${refusedBytes} of ${pcm.length} bytes delivered while refused`,
        );
        taking = true;
        await done;
      } finally {
        await src.stop();
      }
      const out = Buffer.concat(chunks);
      assert.ok(Math.abs(out.length - pcm.length) < 3200, `${out.length} bytes decoded for ${pcm.length}`);
      assert.ok(rmsDbfs(out) > -40, 'the speech is there');
    });
  }

  it("a file that is not audio ends with an AudioFileError in SoX's words", async () => {
    const file = path.join(dir, 'notes.wav');
    writeFileSync(file, 'these are not samples');
    const src = new AudioFileSource(file, 16000, () => true);
    const err = await new Promise<Error>((resolve) => {
      src.on('error', resolve);
      src.on('end', () => resolve(new Error('ended without an error')));
      src.start();
    }).finally(() => src.stop());
    assert.ok(err instanceof AudioFileError, String(err));
    assert.match(err.message, /header|wav|format|RIFF/i);
  });

  it('stop() ends decoding at once', async () => {
    const pcm = Buffer.concat(
      await Promise.all([speechPcm('one two three four five six seven eight nine ten'), speechPcm('eleven twelve')]),
    );
    const file = path.join(dir, 'long.wav');
    const raw = path.join(dir, 'long.raw');
    writeFileSync(raw, pcm);
    assert.equal(spawnSync('sox', ['-t', 'raw', '-r', '16000', '-e', 'signed-integer', '-b', '16', '-c', '1', raw, file]).status, 0);
    const src = new AudioFileSource(file, 16000, () => false, 10);
    let ended = false;
    src.on('end', () => (ended = true));
    // Decoding has begun once its first audio is delivered (the consumer takes no more: it waits there).
    const first = new Promise<void>((resolve) => {
      const d = src.on('data', () => {
        d.dispose();
        resolve();
      });
    });
    src.start();
    await first;
    await src.stop();
    assert.equal(ended, false);
    // It stopped with most of the file undecoded (the consumer took no more than the first audio).
    assert.ok(src.delivered > 0 && src.delivered < pcm.length, `${src.delivered} of ${pcm.length} bytes delivered`);
  });
});
