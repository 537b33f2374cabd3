/**
 * One-time flashes: what a POST made that the next page shows once (a new key's value). Stored server-side
 * (storage/dashboard.ts) encrypted with a key derived from the session cookie's value, which the store never
 * holds: a copy of the database does not reveal a key waiting to be shown. Deleted on the first read.
 */
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

function keyOf(sessionToken: string): Buffer {
  return createHash('sha256').update(`dictee-flash:${sessionToken}`).digest();
}

export function sealFlash(sessionToken: string, value: unknown): string {
  const iv = randomBytes(12);
  const c = createCipheriv('aes-256-gcm', keyOf(sessionToken), iv);
  const body = Buffer.concat([c.update(JSON.stringify(value), 'utf8'), c.final()]);
  return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64');
}

export function openFlash<T>(sessionToken: string, sealed: string): T | undefined {
  try {
    const all = Buffer.from(sealed, 'base64');
    const d = createDecipheriv('aes-256-gcm', keyOf(sessionToken), all.subarray(0, 12));
    d.setAuthTag(all.subarray(12, 28));
    return JSON.parse(Buffer.concat([d.update(all.subarray(28)), d.final()]).toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

/** The flash id of a form's idempotency token in a session: the same form sent twice names the same flash. */
export function flashId(sessionHash: string, idem: string): string {
  return createHash('sha256').update(`${sessionHash}:${idem}`).digest('hex');
}
