/**
 * The second factor's rules (src/server/dashboard/totp.ts): TOTP codes computed here from the secret by
 * RFC 6238 itself (HMAC-SHA1, dynamic truncation), not by otplib, so that the check is independent of the
 * library the service uses; one step of drift; a code used once; the sealed secret; recovery codes.
 */
import assert from 'node:assert/strict';
import {
  SecretBox,
  groupedSecret,
  hashRecoveryCode,
  matchRecoveryCode,
  newRecoveryCodes,
  newTotpSecret,
  otpauthUri,
  recoveryCodeOf,
  totpCodeOf,
  totpStep,
} from '../../src/server/dashboard/totp';
import { rfcTotp } from '../helpers/totp';

describe('dashboard second factor rules', () => {
  const secret = newTotpSecret();
  const now = Date.UTC(2026, 10, 28, 4, 30, 10);
  const step = Math.floor(now / 30_000);

  it('matches RFC 6238 test vector (SHA-1, 59 s: 287082)', () => {
    // RFC 6238 appendix B: the ASCII secret "12345678901234567890", T = 59 s, 8 digits 94287082.
    const rfcSecret = 'GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ';
    assert.equal(rfcTotp(rfcSecret, 1), '287082');
  });

  it('accepts the current code and one step of drift, refuses two steps and a wrong code', async () => {
    assert.equal(secret.length, 32);
    assert.equal(await totpStep(secret, rfcTotp(secret, step), 0, now), step);
    assert.equal(await totpStep(secret, rfcTotp(secret, step - 1), 0, now), step - 1);
    assert.equal(await totpStep(secret, rfcTotp(secret, step + 1), 0, now), step + 1);
    assert.equal(await totpStep(secret, rfcTotp(secret, step - 3), 0, now), undefined);
    const wrong = String((Number(rfcTotp(secret, step)) + 1) % 1_000_000).padStart(6, '0');
    const neighbours = [step - 1, step, step + 1].map((s) => rfcTotp(secret, s));
    if (!neighbours.includes(wrong)) assert.equal(await totpStep(secret, wrong, 0, now), undefined);
  });

  it('refuses a code whose step was taken already (a code is used once)', async () => {
    const code = rfcTotp(secret, step);
    assert.equal(await totpStep(secret, code, step, now), undefined);
    assert.equal(await totpStep(secret, rfcTotp(secret, step - 1), step, now), undefined);
    assert.equal(await totpStep(secret, rfcTotp(secret, step + 1), step, now), step + 1);
  });

  it('reads codes as typed', () => {
    assert.equal(totpCodeOf(' 123 456 '), '123456');
    assert.equal(totpCodeOf('123-456'), '123456');
    assert.equal(totpCodeOf('12345'), undefined);
    assert.equal(totpCodeOf('abcdef'), undefined);
    assert.equal(groupedSecret('ABCDEFGHIJ'), 'ABCD EFGH IJ');
  });

  it('gives an otpauth URI with the issuer, the account and the secret', () => {
    const uri = new URL(otpauthUri(secret, 'alice@hospital.example'));
    assert.equal(uri.protocol, 'otpauth:');
    assert.equal(uri.searchParams.get('secret'), secret);
    assert.equal(uri.searchParams.get('issuer'), 'Dictée');
    assert.match(decodeURIComponent(uri.pathname), /alice@hospital\.example/);
  });

  it('seals a secret with the key (AES-256-GCM), opens it only with that key, and keeps it plain without one', () => {
    const box = new SecretBox(Buffer.alloc(32, 7));
    const sealed = box.seal(secret);
    assert.match(sealed, /^v1:/);
    assert.ok(!sealed.includes(secret));
    assert.notEqual(box.seal(secret), sealed, 'a fresh IV each time');
    assert.equal(box.open(sealed), secret);
    assert.throws(() => new SecretBox(Buffer.alloc(32, 8)).open(sealed), /does not open/);
    assert.throws(() => new SecretBox(undefined).open(sealed), /--mfa-key-file is not given/);
    const raw = Buffer.from(sealed.slice(3), 'base64url');
    raw[40] = raw[40]! ^ 1;
    const tampered = `v1:${raw.toString('base64url')}`;
    assert.throws(() => box.open(tampered), /does not open/);
    const plain = new SecretBox(undefined).seal(secret);
    assert.equal(plain, `plain:${secret}`);
    assert.equal(box.open(plain), secret);
  });

  it('makes ten distinct recovery codes, each matched by its hash only, as typed', async function () {
    this.timeout(30000);
    const codes = newRecoveryCodes();
    assert.equal(codes.length, 10);
    assert.equal(new Set(codes).size, 10);
    for (const c of codes) assert.match(c, /^[a-z2-9]{5}-[a-z2-9]{5}$/);
    const hashes = await Promise.all(codes.slice(0, 3).map(async (c, n) => ({ n, hash: await hashRecoveryCode(c) })));
    assert.match(hashes[0]!.hash, /^\$argon2id\$/);
    assert.equal(await matchRecoveryCode(codes[2]!, hashes), 2);
    assert.equal(await matchRecoveryCode(codes[5]!, hashes), undefined);
    assert.equal(recoveryCodeOf(` ${codes[1]!.toUpperCase().replace('-', ' ')} `), codes[1]);
    assert.equal(recoveryCodeOf('12345'), undefined);
  });
});
