/**
 * A FAKE of the `sherpa-onnx-node` addon's OnlineRecognizer and OfflineRecognizer (the interfaces of
 * src/server/engine/sherpa/addon.ts), for testing the sherpa-onnx engine's own logic (batching, language
 * pinning, keyterms, punctuation, proofreading) where no speech model can be downloaded. It recognises
 * nothing: it releases the words of a script, one per voiced chunk of audio it decodes, and records every
 * call. Nothing here says anything about a real model's accuracy.
 */
import type {
  SherpaAddon,
  SherpaOffline,
  SherpaOfflineStream,
  SherpaOnline,
  SherpaOnlineStream,
  Waveform,
} from '../../src/server/engine/sherpa/addon';

/** Samples one decode consumes (100 ms at 16 kHz), like a streaming model's chunk. */
export const FAKE_CHUNK = 1600;

export class FakeOnlineStream implements SherpaOnlineStream {
  readonly options = new Map<string, string>();
  /** Every setOption call, in order. */
  readonly optionCalls: Array<[string, string]> = [];
  buffered: number[] = [];
  words: string[] = [];
  /** Index of the next script word, per script (a reset does not rewind the speaker). */
  next = 0;
  accepted = 0;
  acceptWaveform(w: Waveform): void {
    if (w.sampleRate !== 16000) throw new Error(`fake: sampleRate ${w.sampleRate}`);
    for (const s of w.samples) this.buffered.push(s);
    this.accepted += w.samples.length;
  }
  setOption(key: string, value: string): void {
    this.options.set(key, value);
    this.optionCalls.push([key, value]);
  }
}

export interface FakeOnlineOptions {
  /** The words released, per pinned language (`auto` when no language is set). */
  scripts: Record<string, string[]>;
  /** Throw from decode/decodeStreams when this returns true. */
  failWhen?: (streams: FakeOnlineStream[]) => boolean;
}

export class FakeOnlineRecognizer implements SherpaOnline {
  /** decode (1) and decodeStreams (n) calls, as the number of streams each decoded. */
  readonly calls: Array<{ method: 'decode' | 'decodeStreams'; streams: number }> = [];
  readonly streams: FakeOnlineStream[] = [];
  constructor(
    readonly config: Record<string, unknown>,
    private readonly o: FakeOnlineOptions,
  ) {}
  createStream(): FakeOnlineStream {
    const s = new FakeOnlineStream();
    this.streams.push(s);
    return s;
  }
  isReady(s: SherpaOnlineStream): boolean {
    return (s as FakeOnlineStream).buffered.length >= FAKE_CHUNK;
  }
  decode(s: SherpaOnlineStream): void {
    this.calls.push({ method: 'decode', streams: 1 });
    this.step([s as FakeOnlineStream]);
  }
  decodeStreams(streams: SherpaOnlineStream[]): void {
    this.calls.push({ method: 'decodeStreams', streams: streams.length });
    this.step(streams as FakeOnlineStream[]);
  }
  getResult(s: SherpaOnlineStream): { text: string } {
    return { text: (s as FakeOnlineStream).words.join(' ') };
  }
  reset(s: SherpaOnlineStream): void {
    const f = s as FakeOnlineStream;
    f.words = [];
    f.buffered = [];
  }
  private step(streams: FakeOnlineStream[]): void {
    if (this.o.failWhen?.(streams)) throw new Error('fake: decode failed');
    for (const s of streams) {
      if (s.buffered.length < FAKE_CHUNK) throw new Error('fake: decode of a stream that is not ready');
      const chunk = s.buffered.splice(0, FAKE_CHUNK);
      const energy = Math.sqrt(chunk.reduce((a, x) => a + x * x, 0) / chunk.length);
      const script = this.o.scripts[s.options.get('language') ?? 'auto'] ?? [];
      if (energy > 0.01 && s.next < script.length) s.words.push(script[s.next++]!);
    }
  }
}

export class FakeOfflineStream implements SherpaOfflineStream {
  samples = 0;
  constructor(readonly hotwords: string | undefined) {}
  acceptWaveform(w: Waveform): void {
    this.samples += w.samples.length;
  }
}

export class FakeOfflineRecognizer implements SherpaOffline {
  readonly decoded: FakeOfflineStream[] = [];
  constructor(
    readonly config: Record<string, unknown>,
    private readonly answer: (samples: number, hotwords: string | undefined) => string,
  ) {}
  createStream(hotwords?: string): FakeOfflineStream {
    return new FakeOfflineStream(hotwords);
  }
  decode(s: SherpaOfflineStream): void {
    this.decoded.push(s as FakeOfflineStream);
  }
  getResult(s: SherpaOfflineStream): { text: string } {
    const f = s as FakeOfflineStream;
    return { text: this.answer(f.samples, f.hotwords) };
  }
}

/** A fake addon whose recognizers are kept in `online` and `offline` for the test to inspect. */
export function fakeSherpaAddon(
  o: FakeOnlineOptions & { offline?: (samples: number, hotwords: string | undefined) => string },
): SherpaAddon & {
  online: FakeOnlineRecognizer[];
  offline: FakeOfflineRecognizer[];
} {
  const online: FakeOnlineRecognizer[] = [];
  const offline: FakeOfflineRecognizer[] = [];
  return {
    version: 'fake',
    online,
    offline,
    OnlineRecognizer: class {
      constructor(config: object) {
        const r = new FakeOnlineRecognizer(config as Record<string, unknown>, o);
        online.push(r);
        return r;
      }
    } as unknown as SherpaAddon['OnlineRecognizer'],
    OfflineRecognizer: class {
      constructor(config: object) {
        const r = new FakeOfflineRecognizer(config as Record<string, unknown>, o.offline ?? (() => ''));
        offline.push(r);
        return r;
      }
    } as unknown as NonNullable<SherpaAddon['OfflineRecognizer']>,
  };
}
