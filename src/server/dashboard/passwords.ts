/**
 * Passwords: hashed with argon2id (the `argon2` package, OWASP's parameters: 19 MiB, 2 passes, 1 lane),
 * verified in constant time by the library; a verification against a throwaway hash when the email is
 * unknown, so that the time taken does not tell which emails have an account.
 */
import argon2 from 'argon2';

const OPTIONS = { type: argon2.argon2id, memoryCost: 19_456, timeCost: 2, parallelism: 1 } as const;

/** The shortest password accepted (NIST SP 800-63B: 8 at least; 12 asked here). */
export const MIN_PASSWORD_LENGTH = 12;

export function hashPassword(password: string): Promise<string> {
  return argon2.hash(password, OPTIONS);
}

let throwaway: Promise<string> | undefined;

/** Whether `password` matches `hash` (a null hash: no password set, never matches, in the same time). */
export async function verifyPassword(hash: string | null, password: string): Promise<boolean> {
  if (hash === null) {
    throwaway ??= hashPassword('no account has this password');
    await argon2.verify(await throwaway, password).catch(() => false);
    return false;
  }
  try {
    return await argon2.verify(hash, password);
  } catch {
    return false;
  }
}
