/** Assertions on what the user gets: the document's text against the words the service was scripted to say. */
import assert from 'node:assert/strict';
import { firstPassWords } from './world';

/** The text between `before` and `after` in `doc`, asserting both are intact (what the user had typed). */
export function between(doc: string, before: string, after: string): string {
  assert.ok(doc.startsWith(before), `the text before the cursor was changed:\n--- expected to start with\n${before}\n--- document\n${doc}`);
  assert.ok(doc.endsWith(after), `the text after the cursor was changed:\n--- expected to end with\n${after}\n--- document\n${doc}`);
  assert.ok(doc.length >= before.length + after.length, 'the document is shorter than the text the user had typed');
  return doc.slice(before.length, doc.length - after.length);
}

/**
 * Asserts that `text` is, word for word (case and punctuation aside), the first words of `script`: every
 * dictated word present once, in order, nothing lost in between and nothing added. Returns the words.
 */
export function assertScriptPrefix(text: string, script: string, minWords: number, what = 'dictated text'): string[] {
  const got = firstPassWords(text);
  const want = firstPassWords(script);
  assert.ok(got.length >= minWords, `${what}: expected at least ${minWords} words, got ${got.length}: "${text}"`);
  assert.deepEqual(
    got,
    want.slice(0, got.length),
    `${what} is not the script's words in order, each once:\n got: ${got.join(' ')}\nwant: ${want.slice(0, got.length).join(' ')}…`,
  );
  return got;
}
