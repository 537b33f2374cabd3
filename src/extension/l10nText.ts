/**
 * How the pure modules of the extension get their words translated without importing `vscode`: they
 * take an `L10n` (in the extension, `vscode.l10n`; in unit tests, `ENGLISH`) and call `l10n.t(...)`
 * with the English text, so that `npm run l10n` finds every string the same way in every module.
 */

export type L10nArg = string | number | boolean;

export interface L10n {
  t(message: string, ...args: L10nArg[]): string;
}

/** The English text with `{0}`, `{1}`… replaced: what `vscode.l10n.t` gives when no bundle applies. */
export const ENGLISH: L10n = {
  t: (message, ...args) => message.replace(/\{(\d+)\}/g, (m, i: string) => (Number(i) < args.length ? String(args[Number(i)]) : m)),
};
