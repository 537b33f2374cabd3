import assert from 'node:assert/strict';
import { parseArecordList, parsePactlJson, parsePactlShort, parseSystemProfiler } from '../../src/audio/devices';
import { soxDecodeArgs } from '../../src/audio/fileSource';

/** What `pactl -f json list sources` printed (PulseAudio 16.1): a null sink's monitor and a remapped source. */
const PACTL_JSON = JSON.stringify([
  {
    index: 0,
    state: 'IDLE',
    name: 'virtmic.monitor',
    description: 'Monitor of Null Output',
    driver: 'module-null-sink.c',
    monitor_source: 'virtmic',
    properties: { 'device.description': 'Monitor of Null Output', 'device.class': 'monitor' },
  },
  {
    index: 1,
    state: 'RUNNING',
    name: 'alsa_input.usb-Plantronics-00.mono-fallback',
    description: 'Blackwire 3220 Mono',
    properties: { 'device.class': 'sound' },
  },
  {
    index: 2,
    state: 'SUSPENDED',
    name: 'alsa_input.pci-0000_00_1f.3.analog-stereo',
    description: 'Built-in Audio Analog Stereo',
    properties: { 'device.class': 'sound' },
  },
]);

describe('input devices', () => {
  it('PulseAudio/PipeWire sources (JSON): microphones first, the default first among them, monitors last', () => {
    const d = parsePactlJson(PACTL_JSON, 'alsa_input.pci-0000_00_1f.3.analog-stereo');
    assert.deepEqual(
      d.map((x) => [x.id, x.label, x.isDefault, x.isMonitor]),
      [
        ['alsa_input.pci-0000_00_1f.3.analog-stereo', 'Built-in Audio Analog Stereo', true, false],
        ['alsa_input.usb-Plantronics-00.mono-fallback', 'Blackwire 3220 Mono', false, false],
        ['virtmic.monitor', 'Monitor of Null Output', false, true],
      ],
    );
    assert.throws(() => parsePactlJson('{"not":"a list"}', undefined), /not a list/);
  });

  it('PulseAudio sources (short listing of an older pactl)', () => {
    const d = parsePactlShort(
      '0\tvirtmic.monitor\tmodule-null-sink.c\ts16le 2ch 44100Hz\tIDLE\n1\tmic\tmodule-remap-source.c\ts16le 1ch 16000Hz\tRUNNING\n',
      'mic',
    );
    assert.deepEqual(
      d.map((x) => [x.id, x.isDefault, x.isMonitor]),
      [
        ['mic', true, false],
        ['virtmic.monitor', false, true],
      ],
    );
  });

  it('ALSA capture devices (arecord -L)', () => {
    const d = parseArecordList(
      'null\n    Discard all samples (playback) or generate zero samples (capture)\ndefault\n    Default ALSA Output (currently PulseAudio Sound Server)\nhw:CARD=PCH,DEV=0\n    HDA Intel PCH, ALC3246 Analog\n    Direct hardware device without any conversions\n',
    );
    assert.deepEqual(
      d.map((x) => [x.id, x.label, x.isDefault]),
      [
        ['default', 'Default ALSA Output (currently PulseAudio Sound Server) (default)', true],
        ['hw:CARD=PCH,DEV=0', 'HDA Intel PCH, ALC3246 Analog (hw:CARD=PCH,DEV=0)', false],
      ],
    );
  });

  it('CoreAudio devices with inputs (system_profiler)', () => {
    const json = JSON.stringify({
      SPAudioDataType: [
        {
          _name: 'coreaudio_device',
          _items: [
            { _name: 'MacBook Pro Microphone', coreaudio_device_input: 1, coreaudio_default_audio_input_device: 'spaudio_yes' },
            { _name: 'MacBook Pro Speakers', coreaudio_device_output: 2 },
            { _name: 'Jabra Evolve 65', coreaudio_device_input: 1, coreaudio_device_output: 2 },
          ],
        },
      ],
    });
    assert.deepEqual(
      parseSystemProfiler(json).map((x) => [x.id, x.isDefault]),
      [
        ['MacBook Pro Microphone', true],
        ['Jabra Evolve 65', false],
      ],
    );
  });

  it('decodes an audio file to mono 16-bit little-endian PCM at the session rate', () => {
    assert.deepEqual(soxDecodeArgs('/a b/report.mp3', 16000), [
      '-V1',
      '/a b/report.mp3',
      '-t',
      'raw',
      '-r',
      '16000',
      '-e',
      'signed-integer',
      '-b',
      '16',
      '-c',
      '1',
      '-L',
      '-',
    ]);
  });
});
