/**
 * Where an instance's master key comes from: `DICTEE_MASTER_KEY`, or the file named by
 * `DICTEE_MASTER_KEY_FILE` (a systemd credential, `LoadCredential=` and `DICTEE_MASTER_KEY_FILE=%d/master-key`;
 * a file a secret manager writes), or neither (the store's own, or one generated at a first start:
 * storage/masterKey.ts). Each refusal is a MasterKeySourceError (exit 2) whose message names the variable or
 * the file, never the key.
 */
import { readFileSync, statSync } from 'node:fs';
import { errorMessage } from '../shared/errors';
import type { GivenMasterKey } from './storage/masterKey';
import { masterKeyWeakness } from './storage/keys';

class MasterKeySourceError extends Error {
  override readonly name = 'MasterKeySourceError';
}

/** The largest master-key file read (a key is 32 to a few hundred characters). */
const MAX_FILE_BYTES = 4096;

/**
 * The master key given in the environment, checked (length, entropy), or undefined when none is. Both
 * variables set is refused (which one wins would be a guess). The file's trailing line breaks (`\n`, `\r\n`)
 * are not part of the key; any other character is.
 */
export function masterKeyFromEnvironment(env: NodeJS.ProcessEnv): GivenMasterKey | undefined {
  const inline = env.DICTEE_MASTER_KEY || undefined;
  const file = env.DICTEE_MASTER_KEY_FILE || undefined;
  if (inline !== undefined && file !== undefined) {
    throw new MasterKeySourceError('DICTEE_MASTER_KEY and DICTEE_MASTER_KEY_FILE are both set: set only one of them');
  }
  let given: GivenMasterKey | undefined;
  if (inline !== undefined) given = { key: inline, source: 'DICTEE_MASTER_KEY' };
  if (file !== undefined) given = { key: readKeyFile(file), source: `DICTEE_MASTER_KEY_FILE (${file})` };
  if (given) {
    const weakness = masterKeyWeakness(given.key, given.source);
    if (weakness) throw new MasterKeySourceError(weakness);
  }
  return given;
}

function readKeyFile(file: string): string {
  let text: string;
  try {
    if (statSync(file).size > MAX_FILE_BYTES) {
      throw new MasterKeySourceError(
        `DICTEE_MASTER_KEY_FILE (${file}) is larger than ${MAX_FILE_BYTES} bytes: it must hold the master key alone`,
      );
    }
    text = readFileSync(file, 'utf8');
  } catch (e) {
    if (e instanceof MasterKeySourceError) throw e;
    throw new MasterKeySourceError(`cannot read DICTEE_MASTER_KEY_FILE (${file}): ${errorMessage(e)}`);
  }
  const key = text.replace(/[\r\n]+$/, '');
  if (key === '') throw new MasterKeySourceError(`DICTEE_MASTER_KEY_FILE (${file}) is empty: it must hold the master key`);
  if (/[\r\n]/.test(key)) {
    throw new MasterKeySourceError(`DICTEE_MASTER_KEY_FILE (${file}) holds several lines: it must hold the master key alone, on one line`);
  }
  return key;
}
