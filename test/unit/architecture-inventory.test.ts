import assert from 'node:assert/strict';
import { firstSentence, headerComment, inventory, summary } from '../../scripts/architecture-inventory';

describe('architecture inventory (scripts/architecture-inventory.ts)', () => {
  it("reads a file's header comment: a /** */ block or // lines before any code, its first paragraph as one line", () => {
    assert.equal(
      headerComment('/**\n * The one thing.\n * On two lines.\n *\n * Detail.\n */\nimport x from "y";\n'),
      'The one thing. On two lines.',
    );
    assert.equal(headerComment('#!/usr/bin/env node\n// A script.\n// Still it.\n\nconst a = 1;\n'), 'A script. Still it.');
    assert.equal(headerComment('/** Uses {@link Thing} here. */\nexport const a = 1;\n'), 'Uses Thing here.');
  });

  it('a file that starts with code has no header', () => {
    assert.equal(headerComment("import * as vscode from 'vscode';\n/** A class. */\nexport class A {}\n"), undefined);
    assert.equal(headerComment('/**\n *\n */\nexport const a = 1;\n'), undefined);
  });

  it('takes the first sentence, not stopping at file names or "e.g."', () => {
    assert.equal(firstSentence('The run (dictationRun.ts), e.g. Its end. Then more.'), 'The run (dictationRun.ts), e.g. Its end.');
    assert.equal(firstSentence('No period at all'), 'No period at all');
  });

  it('cuts a long summary at its own colon after 40 characters, never inside parentheses', () => {
    const long = `What the thing checks before anything (a: b; c) reaches a run: ${'words '.repeat(60)}end.`;
    assert.equal(summary(long), 'What the thing checks before anything (a: b; c) reaches a run …');
    assert.equal(summary('Short: kept whole.'), 'Short: kept whole.');
  });

  it('lists the files of each folder under its name', () => {
    const md = inventory([
      { path: 'src/a/x.ts', summary: 'X.' },
      { path: 'src/a/y.ts', summary: 'Y.' },
      { path: 'src/a/b/z.ts', summary: 'Z.' },
    ]);
    assert.equal(md, '**`src/a/`**\n\n- `x.ts`: X.\n- `y.ts`: Y.\n\n**`src/a/b/`**\n\n- `z.ts`: Z.');
  });
});
