import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { isProcessAlive, recorderEnv, soxDeviceEnv, which } from '../../src/audio/spawn';

describe('audio: which, device environment, process liveness', () => {
  it('which finds executables on PATH, in order, and only executables', () => {
    const a = mkdtempSync(path.join(os.tmpdir(), 'which-a-'));
    const b = mkdtempSync(path.join(os.tmpdir(), 'which-b-'));
    writeFileSync(path.join(a, 'tool'), 'not executable');
    writeFileSync(path.join(b, 'tool'), '#!/bin/sh\n');
    chmodSync(path.join(b, 'tool'), 0o755);
    assert.equal(which('tool', { PATH: `${a}:${b}` }, 'linux'), path.join(b, 'tool'));
    assert.equal(which('tool', { PATH: a }, 'linux'), undefined);
    assert.equal(which('tool', { PATH: '' }, 'linux'), undefined);
    assert.equal(which(path.join(b, 'tool'), { PATH: '' }, 'linux'), path.join(b, 'tool'));
  });

  it('which uses PATHEXT on Windows-style lookups', () => {
    const d = mkdtempSync(path.join(os.tmpdir(), 'which-w-'));
    writeFileSync(path.join(d, 'sox.EXE'), '');
    assert.equal(which('sox', { Path: d, PATHEXT: '.COM;.EXE' }, 'win32'), path.join(d, 'sox.EXE'));
  });

  it('sox device environment: driver named, ALSA names, PulseAudio names, default', () => {
    assert.deepEqual(soxDeviceEnv('', 'linux', {}), {});
    assert.deepEqual(soxDeviceEnv('virtmic.monitor', 'linux', {}), { AUDIODRIVER: 'pulseaudio', AUDIODEV: 'virtmic.monitor' });
    assert.deepEqual(soxDeviceEnv('hw:1,0', 'linux', {}), { AUDIODRIVER: 'alsa', AUDIODEV: 'hw:1,0' });
    assert.deepEqual(soxDeviceEnv('plughw:CARD=USB', 'linux', {}), { AUDIODRIVER: 'alsa', AUDIODEV: 'plughw:CARD=USB' });
    assert.deepEqual(soxDeviceEnv('alsa:default', 'linux', {}), { AUDIODRIVER: 'alsa', AUDIODEV: 'default' });
    assert.deepEqual(soxDeviceEnv('pulseaudio:x', 'darwin', {}), { AUDIODRIVER: 'pulseaudio', AUDIODEV: 'x' });
    assert.deepEqual(soxDeviceEnv('Built-in Microphone', 'darwin', {}), { AUDIODEV: 'Built-in Microphone' });
    assert.deepEqual(soxDeviceEnv('x', 'linux', { AUDIODRIVER: 'oss' }), { AUDIODEV: 'x' });
  });

  it('recorder environment: asks PulseAudio for a 50 ms latency unless the user set one', () => {
    assert.deepEqual(recorderEnv('sox', '', {}, 'linux'), { PULSE_LATENCY_MSEC: '50' });
    assert.deepEqual(recorderEnv('sox', 'virtmic.monitor', {}, 'linux'), {
      AUDIODRIVER: 'pulseaudio',
      AUDIODEV: 'virtmic.monitor',
      PULSE_LATENCY_MSEC: '50',
    });
    assert.deepEqual(recorderEnv('rec', '', { PULSE_LATENCY_MSEC: '20' }, 'linux'), {});
    assert.deepEqual(recorderEnv('arecord', 'hw:1,0', {}, 'linux'), { PULSE_LATENCY_MSEC: '50' });
  });

  it('isProcessAlive follows a real child process', async () => {
    const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 10000)']);
    const pid = child.pid!;
    assert.equal(isProcessAlive(pid), true);
    child.kill();
    await new Promise((r) => child.once('exit', r));
    assert.equal(isProcessAlive(pid), false);
  });
});
