/**
 * The second factor's rules (docs/dashboard-sign-in.md "Second factor"), without I/O: TOTP (RFC 6238: SHA-1, six
 * digits, 30-second steps, one step of clock drift either way) with otplib; a code accepted once (its time
 * step must be after the last one taken); the secret sealed with AES-256-GCM under the key of
 * `--mfa-key-file` (or kept as is without one: never logged nor exported either way); ten recovery codes of
 * 50 random bits each, hashed with argon2id, each usable once.
 */
import { createCipheriv, createDecipheriv, randomBytes, randomInt } from 'node:crypto';
import { readFileSync } from 'node:fs';
import argon2 from 'argon2';
import { generateSecret, generateURI, verify } from 'otplib';
import type { SecondFactorStore } from '../storage/secondFactor';

const PERIOD_S = 30;
const RECOVERY_ALPHABET = 'abcdefghjkmnpqrstuvwxyz23456789';
const RECOVERY_CODE_COUNT = 10;
const ARGON2 = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** What the dashboard's second factor works with: its store, and what seals the secrets (`--mfa-key-file`). */
export interface DashboardSecondFactor {
  store: SecondFactorStore;
  box: SecretBox;
}

/** Seals and opens TOTP secrets: AES-256-GCM under a 32-byte key, or (no key) `plain:`. */
export class SecretBox {
  constructor(private readonly key: Buffer | undefined) {
    if (key && key.length !== 32) throw new Error('the second factor key must be 32 bytes');
  }

  /** The key of `--mfa-key-file`: 32 bytes written as base64 or hex (`openssl rand -base64 32`). */
  static fromFile(file: string): SecretBox {
    const text = readFileSync(file, 'utf8').trim();
    const key = /^[0-9a-f]{64}$/i.test(text) ? Buffer.from(text, 'hex') : Buffer.from(text, 'base64');
    if (key.length !== 32) throw new Error(`--mfa-key-file ${file} must hold 32 bytes as base64 or hex (openssl rand -base64 32)`);
    return new SecretBox(key);
  }

  get encrypts(): boolean {
    return this.key !== undefined;
  }

  seal(secret: string): string {
    if (!this.key) return `plain:${secret}`;
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.key, iv);
    const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
    return `v1:${Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url')}`;
  }

  /** The secret, or an Error that says why it cannot be read (never what it holds). */
  open(sealed: string): string {
    if (sealed.startsWith('plain:')) return sealed.slice(6);
    if (!sealed.startsWith('v1:')) throw new Error('unknown form of a stored second-factor secret');
    if (!this.key) throw new Error('a second-factor secret is encrypted, and --mfa-key-file is not given');
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', this.key, raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(12, 28));
    try {
      return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    } catch {
      throw new Error('a second-factor secret does not open with the key of --mfa-key-file (another key?)');
    }
  }
}

/** A new TOTP secret (base32, 160 bits). */
export function newTotpSecret(): string {
  return generateSecret({ length: 20 });
}

/** The `otpauth://` URI an authenticator app takes (typed or pasted: no QR code library here). */
export function otpauthUri(secret: string, account: string, issuer = 'Dictée'): string {
  return generateURI({ issuer, label: account, secret });
}

/** The secret in groups of four, easier to type. */
export function groupedSecret(secret: string): string {
  return secret.replace(/(.{4})(?=.)/g, '$1 ');
}

/** A code as typed: spaces and dashes dropped. Six digits, or undefined. */
export function totpCodeOf(typed: string): string | undefined {
  const code = typed.replace(/[\s-]/g, '');
  return /^\d{6}$/.test(code) ? code : undefined;
}

/**
 * The time step a code matches (now, or one step before or after), or undefined: wrong, or not after
 * `lastStep` (the code, or a later one, was used already).
 */
export async function totpStep(secret: string, code: string, lastStep: number, nowMs = Date.now()): Promise<number | undefined> {
  const epoch = Math.floor(nowMs / 1000);
  const result = await verify({
    secret,
    token: code,
    epoch,
    period: PERIOD_S,
    epochTolerance: PERIOD_S,
  });
  if (!result.valid || !('timeStep' in result)) return undefined;
  const step = result.timeStep;
  return step > lastStep ? step : undefined;
}

/** Ten new recovery codes (`xxxxx-xxxxx`, 50 bits each). */
export function newRecoveryCodes(): string[] {
  return Array.from({ length: RECOVERY_CODE_COUNT }, () => {
    let s = '';
    for (let i = 0; i < 10; i++) s += RECOVERY_ALPHABET[randomInt(RECOVERY_ALPHABET.length)];
    return `${s.slice(0, 5)}-${s.slice(5)}`;
  });
}

/** A recovery code as typed (case, spaces and dashes ignored), or undefined when it cannot be one. */
export function recoveryCodeOf(typed: string): string | undefined {
  const s = typed.toLowerCase().replace(/[\s-]/g, '');
  if (s.length !== 10 || [...s].some((c) => !RECOVERY_ALPHABET.includes(c))) return undefined;
  return `${s.slice(0, 5)}-${s.slice(5)}`;
}

export function hashRecoveryCode(code: string): Promise<string> {
  return argon2.hash(code, ARGON2);
}

/** Which of the unused codes `code` is (its number), or undefined. */
export async function matchRecoveryCode(code: string, unused: ReadonlyArray<{ n: number; hash: string }>): Promise<number | undefined> {
  for (const { n, hash } of unused) {
    if (await argon2.verify(hash, code).catch(() => false)) return n;
  }
  return undefined;
}
