/**
 * The text of a sherpa-onnx model as the session asked for it (`auto_punctuation`), and the session's
 * keyterms as the addon's hotwords.
 *
 * A model that punctuates by itself meets a user who says "virgule": with the dictation grammar on,
 * spoken punctuation is what the user wants, and the model's own commas and periods would double or
 * contradict it (Dragon's rule: automatic punctuation is off while spoken punctuation is on). With
 * `auto_punctuation: false` the model's punctuation is taken off every word's edges (inner punctuation,
 * as in `3,5`, `l'homme`, `peut-être`, stays) and the capital it gave a word for starting a sentence of
 * its own is lowered; names and acronyms inside a sentence keep theirs.
 */
import type { RecognizedWord } from '../recognizer';
import { sentenceCase } from '../recognizer';
import type { WordTiming } from './tokens';

/** Punctuation a model writes at a word's edges (not `%`, `€`, `'`: those are parts of what was said). */
const EDGE = /^[.,;:!?…¿¡«»"“”„‹›()[\]{}\-–—]+|[.,;:!?…¿¡«»"“”„‹›()[\]{}\-–—]+$/gu;
const SENTENCE_END = /[.!?…]["»”)]*$/u;
/** A capital that only starts the word: `Bonjour`, not `CT`, `McBride` or `I`. */
const CAPITALISED = /^\p{Lu}[^\p{Lu}]+$/u;
const NONE: ReadonlySet<string> = new Set();

/** The words of the keyterms, as written: {@link modelWords} keeps their capitals. */
export function keptWords(keyterms: readonly string[]): ReadonlySet<string> {
  return new Set(keyterms.flatMap((t) => t.split(/[\s/:]+/u)).filter((w) => w !== ''));
}

/**
 * The words of a model's text; with `autoPunctuation` false, without the model's punctuation and sentence
 * capitals. `keep`: words written as the user writes them (the words of the session's keyterms), whose
 * capital stays wherever they are. `timings`: the times and confidences of the text's whitespace-separated
 * words (tokens.ts), carried to the words they become (a word that was only punctuation goes with its time).
 */
export function modelWords(
  text: string,
  autoPunctuation: boolean,
  keep: ReadonlySet<string> = NONE,
  timings?: readonly WordTiming[],
): RecognizedWord[] {
  const tokens = text.split(/\s+/u).filter((t) => t !== '');
  const timed = timings?.length === tokens.length ? timings : undefined;
  const word = (w: string, i: number): RecognizedWord => (timed ? { raw: w, proofread: w, ...timed[i]! } : { raw: w, proofread: w });
  if (autoPunctuation) return tokens.map(word);
  const out: RecognizedWord[] = [];
  let sentenceStart = true;
  tokens.forEach((token, i) => {
    let w = token.replace(EDGE, '');
    const ends = SENTENCE_END.test(token);
    if (w !== '') {
      if (sentenceStart && CAPITALISED.test(w) && !keep.has(w)) w = w.charAt(0).toLocaleLowerCase() + w.slice(1);
      out.push(word(w, i));
      sentenceStart = false;
    }
    if (ends) sentenceStart = true;
  });
  return out;
}

/** The proofread sentence: the model's text (without its punctuation unless `autoPunctuation`), a capital and a final period. */
export function proofreadText(text: string, autoPunctuation: boolean, keep?: ReadonlySet<string>): string {
  return sentenceCase(modelWords(text, autoPunctuation, keep).map((w) => w.raw));
}

/**
 * Keyterms as the addon's hotwords argument: phrases separated by `/` (a `:` would start a boosting
 * score, so `/` and `:` inside a term become spaces). Undefined when there are none.
 */
export function hotwordsOf(keyterms: readonly string[]): string | undefined {
  const phrases = keyterms
    .map((t) =>
      t
        .replace(/[/:\r\n\t]/gu, ' ')
        .replace(/\s+/gu, ' ')
        .trim(),
    )
    .filter((t) => t !== '');
  const unique = [...new Set(phrases)];
  return unique.length ? unique.join('/') : undefined;
}
