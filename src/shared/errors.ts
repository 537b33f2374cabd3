/** What was thrown, as text for a message or a log line: an Error's message, else its string form. */
export function errorMessage(e: unknown): string {
  if (e instanceof Error) return e.message;
  if (typeof e === 'string') return e;
  try {
    return String(e);
  } catch {
    return 'unknown error';
  }
}
