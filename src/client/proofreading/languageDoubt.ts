/**
 * Wrong language: speech in another language than the dictation language comes back as words the
 * engine is very unsure of, utterance after utterance (French spoken into an English engine gives
 * nonsense without any error). When several utterances in a row have a very low mean
 * confidence, the user is told once per run. Utterances without confidences say nothing either way.
 * Pure: no `vscode`.
 */
import { confidenceOf, type WordInfo } from './wordMap';

interface LanguageDoubtOptions {
  /** An utterance whose mean word confidence is under this is "very low". */
  low: number;
  /** This many such utterances in a row raise the doubt. */
  inARow: number;
  /** Utterances of fewer words are not counted (a cough, "euh"). */
  minWords: number;
}

/**
 * Measured with the English pocketsphinx engine (its confidences are word posteriors): utterances of the
 * LibriVox recordings have a mean of 0.54 to 0.73; French speech (espeak-ng) 0.18 to 0.44.
 */
const LANGUAGE_DOUBT_DEFAULTS: LanguageDoubtOptions = { low: 0.45, inARow: 3, minWords: 2 };

export class LanguageDoubt {
  private streak = 0;
  private raised = false;

  constructor(private readonly options: LanguageDoubtOptions = LANGUAGE_DOUBT_DEFAULTS) {}

  /** One final utterance's words; true exactly once: when the doubt is raised. */
  push(words: readonly WordInfo[]): boolean {
    if (this.raised || words.length < this.options.minWords || words.every((w) => w.confidence === undefined)) return false;
    const mean = words.reduce((sum, w) => sum + confidenceOf(w), 0) / words.length;
    if (mean >= this.options.low) {
      this.streak = 0;
      return false;
    }
    this.streak++;
    if (this.streak < this.options.inARow) return false;
    this.raised = true;
    return true;
  }
}
