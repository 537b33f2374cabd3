import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { englishBundle, LANGUAGES, messagesIn, problems, ROOT } from '../../scripts/l10n';

describe('localisation (package.nls, l10n bundles)', () => {
  it('finds the messages of l10n.t and vscode.l10n.t calls, and refuses a message that is not a literal', () => {
    assert.deepEqual(messagesIn("vscode.l10n.t('A {0}', x); l10n.t(`B`); other.t('C'); t('D');"), ['A {0}', 'B']);
    assert.throws(() => messagesIn('vscode.l10n.t(message)'), /needs a literal message/);
  });

  it('the English bundle is up to date, and every key has a translation with the same placeholders in fr, es and de', () => {
    assert.deepEqual(problems(), []);
    assert.ok(Object.keys(englishBundle()).length > 100);
  });

  it('every %key% of package.json is in package.nls.json', () => {
    const manifest = readFileSync(path.join(ROOT, 'package.json'), 'utf8');
    const nls = JSON.parse(readFileSync(path.join(ROOT, 'package.nls.json'), 'utf8')) as Record<string, string>;
    const keys = [...manifest.matchAll(/"%([^%"]+)%"/g)].map((m) => m[1]!);
    assert.ok(keys.length > 50);
    for (const k of keys) assert.ok(k in nls, k);
  });

  it('walkthrough descriptions write code as ``code`` (their Markdown shows a single backtick as it is), in every language', () => {
    for (const f of ['package.nls.json', ...LANGUAGES.map((l) => `package.nls.${l}.json`)]) {
      const nls = JSON.parse(readFileSync(path.join(ROOT, f), 'utf8')) as Record<string, string>;
      for (const [k, v] of Object.entries(nls)) {
        if (k.startsWith('walkthrough.')) assert.doesNotMatch(v.replace(/``[^`]+``/g, ''), /`/, `${f}: ${k}`);
      }
    }
  });

  it('French follows French typography: a no-break space before : ; ? ! and inside « »', () => {
    for (const f of ['l10n/bundle.l10n.fr.json', 'package.nls.fr.json']) {
      const fr = JSON.parse(readFileSync(path.join(ROOT, f), 'utf8')) as Record<string, string>;
      for (const v of Object.values(fr)) {
        assert.doesNotMatch(v.replace(/`[^`]*`|\([^)]*command:[^)]*\)|https?:\/\/\S+|\$\([a-z-]+\)/g, ''), / [:;?!»]|« /, v);
      }
    }
    assert.deepEqual([...LANGUAGES], ['fr', 'es', 'de']);
  });
});
