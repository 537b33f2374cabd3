/**
 * `npm run l10n`: writes l10n/bundle.l10n.json, the English strings of the extension's runtime UI (and l10n/dashboard.l10n.json, the dashboard's, from src/server/dashboard/), from
 * every `l10n.t('…')` and `vscode.l10n.t('…')` call in src/extension/ (the pure modules take an `L10n`
 * named `l10n`, so their calls read the same). The translations are l10n/bundle.l10n.<lang>.json, by
 * hand; `npm run l10n -- --check` fails when the bundle is out of date or a translation lacks a key
 * (test/unit/l10n.test.ts runs the same checks).
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export const ROOT = path.resolve(__dirname, '..');
export const LANGUAGES = ['fr', 'es', 'de'] as const;
/** The dashboard's messages (served by the service, src/server/dashboard/i18n.ts). */
const DASHBOARD_SOURCES = path.join('src', 'server', 'dashboard');

/** The message of every `l10n.t(...)` call in `source` (string literals and no-substitution templates). */
export function messagesIn(source: string, fileName = 'x.ts'): string[] {
  const sf = ts.createSourceFile(fileName, source, ts.ScriptTarget.Latest, true);
  const out: string[] = [];
  const visit = (n: ts.Node): void => {
    if (ts.isCallExpression(n) && ts.isPropertyAccessExpression(n.expression) && n.expression.name.text === 't') {
      const target = n.expression.expression;
      const isL10n =
        (ts.isIdentifier(target) && target.text === 'l10n') || (ts.isPropertyAccessExpression(target) && target.name.text === 'l10n');
      const first = n.arguments[0];
      if (isL10n && first) {
        if (ts.isStringLiteral(first) || ts.isNoSubstitutionTemplateLiteral(first)) out.push(first.text);
        else throw new Error(`${fileName}:${sf.getLineAndCharacterOfPosition(first.getStart()).line + 1}: l10n.t needs a literal message`);
      }
    }
    ts.forEachChild(n, visit);
  };
  visit(sf);
  return out;
}

/**
 * The English bundle: every message of src/extension (or of another folder: the dashboard's,
 * src/server/dashboard, whose bundles are l10n/dashboard.l10n*.json), sorted, each its own translation.
 */
export function englishBundle(folder = path.join('src', 'extension')): Record<string, string> {
  const dir = path.join(ROOT, folder);
  const messages = new Set<string>();
  const files = (readdirSync(dir, { recursive: true }) as string[]).filter((f) => f.endsWith('.ts')).sort();
  for (const f of files) {
    for (const m of messagesIn(readFileSync(path.join(dir, f), 'utf8'), f)) messages.add(m);
  }
  return Object.fromEntries([...messages].sort().map((m) => [m, m]));
}

/** The `{0}`… placeholders of a message, sorted. */
export function placeholders(m: string): string[] {
  return (m.match(/\{\d+\}/g) ?? []).sort();
}

/** What is wrong with the bundles and package.nls files (empty: all good). */
export function problems(): string[] {
  const out: string[] = [];
  const read = (f: string): Record<string, string> => JSON.parse(readFileSync(path.join(ROOT, f), 'utf8')) as Record<string, string>;
  const en = englishBundle();
  const committed = read('l10n/bundle.l10n.json');
  if (JSON.stringify(committed) !== JSON.stringify(en))
    out.push('l10n/bundle.l10n.json is not what `npm run l10n` writes from the sources: run it');
  const dashboard = englishBundle(DASHBOARD_SOURCES);
  if (JSON.stringify(read('l10n/dashboard.l10n.json')) !== JSON.stringify(dashboard))
    out.push('l10n/dashboard.l10n.json is not what `npm run l10n` writes from the sources: run it');
  const nls = read('package.nls.json');
  // package.nls.en.json only overrides a few originals for an English VS Code (see docs/extension.md).
  for (const k of Object.keys(read('package.nls.en.json')))
    if (!(k in nls)) out.push(`package.nls.en.json: ${JSON.stringify(k)} is not in package.nls.json`);
  for (const lang of LANGUAGES) {
    for (const [file, base] of [
      [`l10n/bundle.l10n.${lang}.json`, en],
      [`package.nls.${lang}.json`, nls],
      [`l10n/dashboard.l10n.${lang}.json`, dashboard],
    ] as const) {
      const tr = read(file);
      for (const [k, v] of Object.entries(base)) {
        const t = tr[k];
        if (typeof t !== 'string' || t.trim() === '') out.push(`${file}: no translation of ${JSON.stringify(k)}`);
        else if (placeholders(t).join() !== placeholders(v).join()) out.push(`${file}: the placeholders of ${JSON.stringify(k)} differ`);
      }
      for (const k of Object.keys(tr)) if (!(k in base)) out.push(`${file}: ${JSON.stringify(k)} is no longer used`);
    }
  }
  return out;
}

if (require.main === module) {
  if (process.argv.includes('--check')) {
    const p = problems();
    for (const x of p) console.error(x);
    process.exit(p.length ? 1 : 0);
  }
  const en = englishBundle();
  writeFileSync(path.join(ROOT, 'l10n', 'bundle.l10n.json'), `${JSON.stringify(en, null, 2)}\n`);
  console.log(`l10n/bundle.l10n.json: ${Object.keys(en).length} messages`);
  const dash = englishBundle(DASHBOARD_SOURCES);
  writeFileSync(path.join(ROOT, 'l10n', 'dashboard.l10n.json'), `${JSON.stringify(dash, null, 2)}\n`);
  console.log(`l10n/dashboard.l10n.json: ${Object.keys(dash).length} messages`);
}
