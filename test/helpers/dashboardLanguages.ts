/**
 * What the dashboard's language test checks on each page: the `<html lang>`, no English message of the
 * dashboard's catalogue (l10n/dashboard.l10n.json, read as scripts/l10n.ts reads the sources) left in a page
 * of another language where that language has its own words for it, axe-core's serious or critical WCAG 2.1
 * A/AA violations, the CSP violations reported, and no `<input type="date">` (Chromium draws those in the
 * browser's language, not the page's). Each check answers with readable problems (empty: all good).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';

const AXE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

/**
 * axe-core's serious and critical WCAG 2.1 A/AA violations of the page (run through the DevTools protocol,
 * so the page's CSP is not loosened); only the violations are worked out, not every check that passed.
 */
async function axeViolations(page: Page): Promise<string[]> {
  // Once per document (a dialog opened on a page is checked in the same one).
  if ((await page.evaluate('typeof axe')) !== 'object') await page.evaluate(AXE);
  const found = await page.evaluate<Array<{ id: string; impact: string; where: string[] }>>(`
    axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] }, resultTypes: ['violations'] })
      .then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, where: v.nodes.map((n) => n.target.join(' ')).slice(0, 3) })))`);
  return found.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.where.join(', ')}`);
}

export type Lang = 'en' | 'fr' | 'es' | 'de';

const L10N = path.resolve(__dirname, '..', '..', 'l10n');
const read = (f: string): Record<string, string> => JSON.parse(readFileSync(path.join(L10N, f), 'utf8')) as Record<string, string>;

/** The pieces of a message between its placeholders that hold words (`{0} keys` → `keys`). */
function pieces(message: string): string[] {
  return message
    .split(/\{\d+\}/)
    .map((p) => p.trim().replace(/^[\s,:;.()–-]+|[\s,:;.()–-]+$/g, ''))
    .filter((p) => /\p{L}.*\p{L}/u.test(p));
}

function escape(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** `piece` as a whole word or words of a text. */
function wordsOf(piece: string): RegExp {
  return new RegExp(`(^|[^\\p{L}\\p{N}_])${escape(piece)}($|[^\\p{L}\\p{N}_])`, 'u');
}

const ENGLISH_ONLY = new Map<Lang, Array<{ message: string; piece: string; words: RegExp }>>();

/**
 * The English texts that must not be seen in a page of `lang`: the pieces of every message whose translation
 * differs, unless the language itself uses those words somewhere in its catalogue ("Sessions" in French,
 * "Filter" in German are words of theirs, not signs of anything left in English).
 */
export function englishOnly(lang: Lang): Array<{ message: string; piece: string; words: RegExp }> {
  if (lang === 'en') return [];
  const cached = ENGLISH_ONLY.get(lang);
  if (cached) return cached;
  const english = read('dashboard.l10n.json');
  const translated = read(`dashboard.l10n.${lang}.json`);
  const theirs = Object.values(translated);
  const out: Array<{ message: string; piece: string; words: RegExp }> = [];
  for (const message of Object.keys(english)) {
    const t = translated[message];
    if (t === undefined || t === message) continue;
    for (const piece of pieces(message)) {
      const words = wordsOf(piece);
      if (!theirs.some((x) => words.test(x))) out.push({ message, piece, words });
    }
  }
  ENGLISH_ONLY.set(lang, out);
  return out;
}

/** The English messages found in `text` (whole words, case kept). */
export function englishIn(text: string, lang: Lang): string[] {
  const found = new Set<string>();
  for (const { message, words } of englishOnly(lang)) if (words.test(text)) found.add(message);
  return [...found];
}

/**
 * Every text of the page a person reads or hears: the title, what is rendered (an open dialog's too) but
 * for identifiers in `<code>`, the options of menus, the labels of controls (aria-label, title, placeholder,
 * alt, a button's value).
 */
export async function pageTexts(page: Page): Promise<string> {
  return page.evaluate(() => {
    const doc = (globalThis as unknown as { document: Record<string, unknown> }).document as unknown as {
      title: string;
      body: { innerText: string };
      querySelectorAll(s: string): ArrayLike<{ textContent: string | null; getAttribute(n: string): string | null }>;
    };
    // What is in <code> is an identifier (an audit action, a key's hint, an id), the same in every language.
    let body = doc.body.innerText;
    const codes = doc.querySelectorAll('code') as unknown as ArrayLike<{ innerText: string }>;
    for (let i = 0; i < codes.length; i++) body = body.replace(codes[i]!.innerText, ' ');
    const out = [doc.title, body];
    const all = doc.querySelectorAll('option');
    for (let i = 0; i < all.length; i++) out.push(all[i]!.textContent ?? '');
    const labelled = doc.querySelectorAll('[aria-label], [title], [placeholder], [alt], input[type=submit], input[type=button]');
    for (let i = 0; i < labelled.length; i++)
      for (const a of ['aria-label', 'title', 'placeholder', 'alt', 'value']) {
        const v = labelled[i]!.getAttribute(a);
        if (v && (a !== 'value' || /^(submit|button)$/.test(labelled[i]!.getAttribute('type') ?? ''))) out.push(v);
      }
    return out.join('\n');
  });
}

/** A browser context in a language (its Accept-Language, navigator.language and Intl) that records CSP violations. */
export async function languageContext(
  browser: { newContext(o: object): Promise<BrowserContext> },
  locale: string,
): Promise<{ context: BrowserContext; page: Page; csp: string[] }> {
  const context = await browser.newContext({ locale });
  // Runs in the page's world before its scripts (not subject to its CSP): it only listens.
  await context.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => console.error('Content Security Policy: ' + e.violatedDirective + ' ' + e.blockedURI));",
  );
  const page = await context.newPage();
  const csp: string[] = [];
  page.on('console', (m) => {
    if (/Content[- ]Security[- ]Policy/i.test(m.text())) csp.push(m.text());
  });
  return { context, page, csp };
}

/** The problems of the page shown now, for a page that should be in `lang` (each prefixed with `where`). */
export async function pageProblems(page: Page, lang: Lang, csp: string[], where: string): Promise<string[]> {
  const out: string[] = [];
  const htmlLang = await page.locator('html').getAttribute('lang');
  if (htmlLang !== lang) out.push(`<html lang="${htmlLang}">, not ${lang}`);
  const texts = await pageTexts(page);
  for (const m of englishIn(texts, lang)) out.push(`untranslated: ${JSON.stringify(m)}`);
  for (const v of await axeViolations(page)) out.push(`axe: ${v}`);
  for (const c of csp.splice(0)) out.push(`CSP: ${c}`);
  const dateInputs = await page.locator('input[type=date]').count();
  if (dateInputs) out.push(`${dateInputs} <input type="date"> (drawn in the browser's language)`);
  return out.map((p) => `${lang} ${where}: ${p}`);
}
