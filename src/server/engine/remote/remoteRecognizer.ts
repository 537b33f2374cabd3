/**
 * The {@link Recognizer} the segmenter drives for a remote engine. It recognises nothing itself: the
 * upstream's text arrives between windows (remotePort.ts hands it over), and `push` reports it at the
 * next window. The port holds the segmenter back at each pause until the upstream has answered for the
 * audio before it, so `endUtterance` gets the upstream's final words of the utterance.
 *
 * Every upstream word is given out once: the words of an upstream utterance already handed out when
 * the segmenter ended one of its own utterances inside it (`consumed`) are skipped when the upstream
 * says them again (its next partial, its final, or its decode of the audio re-sent after a reconnect).
 */
import type { RecognizedWord, Recognizer } from '../recognizer';
import { modelWords, proofreadText } from '../sherpa/text';

const REMOTE_SNAPSHOT = { engine: 'remote' } as const;

export class RemoteRecognizer implements Recognizer {
  readonly resumeFrom = 'utterance-start';
  readonly ignoresAudio: boolean;
  /** Words of upstream utterances finished since the segmenter last ended one. */
  private done: RecognizedWord[] = [];
  /** The upstream's open utterance, less the words already handed out. */
  private partial: RecognizedWord[] = [];
  /** Words of the upstream's open utterance already handed out. */
  private consumed = 0;
  private changed = false;
  /** The sentence's audio (for the second pass), when there is one. */
  private sentenceAudio: Buffer[] = [];

  private readonly secondPass: ((pcm: Buffer) => Promise<string>) | undefined;
  private readonly autoPunctuation: boolean;
  private readonly keep: ReadonlySet<string> | undefined;

  constructor(
    readonly name: string,
    o: {
      /** Second pass on a finished sentence's audio (`--proofread-url`). */
      secondPass?: (pcm: Buffer) => Promise<string>;
      /** `auto_punctuation`: keep the upstream's punctuation and sentence capitals (default true). */
      autoPunctuation?: boolean;
      /** Words written as the user writes them (the session's keyterms): their capitals stay. */
      keep?: ReadonlySet<string>;
    } = {},
  ) {
    this.secondPass = o.secondPass;
    this.autoPunctuation = o.autoPunctuation !== false;
    this.keep = o.keep;
    this.ignoresAudio = o.secondPass === undefined;
  }

  /** The upstream's text as words, as the session asked (`auto_punctuation`, the same rules as sherpa-onnx's). */
  private words(text: string): RecognizedWord[] {
    return modelWords(text, this.autoPunctuation, this.keep);
  }

  // ------------------------------------------------------------ from the upstream (remotePort.ts)

  upstreamPartial(text: string): void {
    this.partial = this.words(text).slice(this.consumed);
    this.changed = true;
  }

  upstreamFinal(text: string): void {
    this.done.push(...this.words(text).slice(this.consumed));
    this.consumed = 0;
    this.partial = [];
    this.changed = true;
  }

  /** The upstream starts its open utterance again (a new connection fed the audio since its last final). */
  upstreamRestart(): void {
    if (this.partial.length) this.changed = true;
    this.partial = [];
  }

  // ------------------------------------------------------------ the Recognizer contract

  push(window: Buffer): RecognizedWord[] | undefined {
    if (this.secondPass && window.length) this.sentenceAudio.push(Buffer.from(window));
    if (!this.changed) return undefined;
    this.changed = false;
    return [...this.done, ...this.partial];
  }

  endUtterance(): RecognizedWord[] {
    const out = [...this.done, ...this.partial];
    this.consumed += this.partial.length;
    this.done = [];
    this.partial = [];
    this.changed = false;
    return out;
  }

  endSentence(words: RecognizedWord[], proofread: boolean): string | Promise<string> | undefined {
    const audio = Buffer.concat(this.sentenceAudio);
    this.sentenceAudio = [];
    if (!proofread) return undefined;
    // The first pass's words are already as the session asked (auto_punctuation): a capital and a period.
    const firstPass = proofreadText(words.map((w) => w.raw).join(' '), true);
    if (!this.secondPass || audio.length === 0) return firstPass;
    return this.secondPass(audio).then((text) => (text.trim() === '' ? firstPass : proofreadText(text, this.autoPunctuation, this.keep)));
  }

  checkpoint(): unknown {
    return REMOTE_SNAPSHOT;
  }

  restore(snapshot: unknown): void {
    if ((snapshot as { engine?: unknown } | null)?.engine !== 'remote') throw new Error('not a checkpoint of a remote engine');
  }
}
