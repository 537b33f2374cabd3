/**
 * The command palette (issue 29, defect 1): typing a command's exact name ("Dictée: Play Back") must not
 * also find VS Code's generated "Focus on … View" command of one of Dictée's views, which sorts before it
 * ("Dictée: Focus on Play Back View") and takes the Enter. The palette finds a command when each word
 * typed begins a word of its title, in order (VS Code's `matchesWords`); this checks the manifest's
 * titles, in the four languages, against that rule.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (f: string): unknown => JSON.parse(readFileSync(path.join(ROOT, f), 'utf8'));

/** Each word of `query` begins a word of `title`, in order (case aside): the palette lists `title` for `query`. */
function wordsMatch(query: string, title: string): boolean {
  const q = query.toLowerCase().split(/\s+/u).filter(Boolean);
  const t = title.toLowerCase().split(/\s+/u).filter(Boolean);
  let i = 0;
  for (const w of t) if (i < q.length && w.startsWith(q[i]!)) i++;
  return i === q.length;
}

describe('command palette: a command found by its exact name is the only Dictée match', () => {
  const manifest = read('package.json') as {
    contributes: {
      commands: { command: string; title: string; category?: string }[];
      viewsContainers: Record<string, { id: string; title: string }[]>;
      views: Record<string, { id: string; name: string }[]>;
    };
  };
  const base = read('package.nls.json') as Record<string, string>;
  const languages: Record<string, Record<string, string>> = {
    en: { ...base, ...(read('package.nls.en.json') as Record<string, string>) },
    fr: { ...base, ...(read('package.nls.fr.json') as Record<string, string>) },
    es: { ...base, ...(read('package.nls.es.json') as Record<string, string>) },
    de: { ...base, ...(read('package.nls.de.json') as Record<string, string>) },
  };
  const text = (nls: Record<string, string>, s: string): string => s.replace(/^%(.*)%$/u, (_, k: string) => nls[k] ?? s);

  it('the matcher finds what the palette finds', () => {
    assert.equal(wordsMatch('Dictée: Play Back', 'Dictée: Focus on Play Back View'), true);
    assert.equal(wordsMatch('Dictée: Play Back', 'Dictée: Focus on Player View'), false);
  });

  for (const [lang, nls] of Object.entries(languages)) {
    it(`${lang}: no view's "Focus on … View" command matches a command's exact name`, () => {
      const containers = new Map(
        Object.values(manifest.contributes.viewsContainers)
          .flat()
          .map((c) => [c.id, text(nls, c.title)]),
      );
      const clashes: string[] = [];
      for (const [container, views] of Object.entries(manifest.contributes.views)) {
        for (const v of views) {
          // VS Code's title of the command, in English; translated, the view's name is the part that matters.
          const focus = `${containers.get(container) ?? container}: Focus on ${text(nls, v.name)} View`;
          for (const c of manifest.contributes.commands) {
            const name = `${text(nls, c.category ?? '')}: ${text(nls, c.title)}`;
            if (wordsMatch(name, focus)) clashes.push(`"${name}" also finds "${focus}"`);
          }
        }
      }
      assert.deepEqual(clashes, []);
    });
  }
});
