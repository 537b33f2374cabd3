/**
 * TOTP codes computed by RFC 6238 itself (HMAC-SHA1, dynamic truncation, six digits, 30-second steps), not by
 * otplib, so that the tests' codes are independent of the library the service uses.
 */
import { createHmac } from 'node:crypto';

/** RFC 4648 base32 decoding. */
function base32(s: string): Buffer {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const c of s.replace(/=+$/, '')) bits += alphabet.indexOf(c).toString(2).padStart(5, '0');
  const bytes: number[] = [];
  for (let i = 0; i + 8 <= bits.length; i += 8) bytes.push(parseInt(bits.slice(i, i + 8), 2));
  return Buffer.from(bytes);
}

/** RFC 6238's TOTP (SHA-1, 6 digits, 30 s) at a time step. */
export function rfcTotp(secret: string, step: number): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(step));
  const mac = createHmac('sha1', base32(secret)).update(counter).digest();
  const offset = mac[mac.length - 1]! & 0xf;
  const n = (mac.readUInt32BE(offset) & 0x7fffffff) % 1_000_000;
  return String(n).padStart(6, '0');
}

/** The code of the current time step. */
export function currentTotp(secret: string, nowMs = Date.now()): string {
  return rfcTotp(secret, Math.floor(nowMs / 30_000));
}
