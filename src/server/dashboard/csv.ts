/**
 * CSV exports of the dashboard (RFC 4180, CRLF line ends), safe to open in a spreadsheet: a cell that starts
 * with `=`, `+`, `-`, `@`, a tab or a carriage return is prefixed with `'`, so it is never run as a formula
 * (OWASP, "CSV Injection"); numbers are written as numbers, in the C locale.
 */

export type CsvCell = string | number | null | undefined;

/** One field: neutralised, then quoted when it holds a quote, a comma or a line end. */
export function csvCell(v: CsvCell): string {
  if (typeof v === 'number') return Number.isFinite(v) ? String(v) : '';
  let s = v ?? '';
  if (/^[=+\-@\t\r]/.test(s)) s = `'${s}`;
  return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
}

/** A whole file: the header line, then a line per row. */
export function toCsv(header: readonly string[], rows: Iterable<readonly CsvCell[]>): string {
  const lines = [header.map(csvCell).join(',')];
  for (const r of rows) lines.push(r.map(csvCell).join(','));
  return `${lines.join('\r\n')}\r\n`;
}

/** A download's file name: letters, digits, dots and dashes only. */
export function fileName(stem: string, ext: 'csv' | 'jsonl'): string {
  return `${stem.replace(/[^A-Za-z0-9.-]+/g, '-')}.${ext}`;
}
