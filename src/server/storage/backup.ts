/**
 * An online backup of the SQLite store (`node dist/server.js backup FILE`): a consistent copy of the data
 * dir's database, taken while the service runs, by SQLite's `VACUUM INTO` (one read transaction: the copy is
 * the database as of one commit, and the service's writes go on meanwhile; WAL readers never block the
 * writer). The copy holds API key hashes, the master key's hash and dictated text: it is written 0600 into a
 * temporary file beside FILE, checked (`PRAGMA integrity_check`), flushed to disk, and only then put in
 * place; an existing FILE is replaced only when asked (`--force`).
 *
 * Restoring is copying that file into place as `<data-dir>/dictee.sqlite` with the service stopped
 * (docs/server.md, "Backup and restore"): a copy is a complete database, migrated at the next start if older.
 */
import Database from 'better-sqlite3';
import { randomBytes } from 'node:crypto';
import { chmodSync, closeSync, existsSync, fsyncSync, linkSync, openSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import { DB_FILE } from './db';

/** A backup refused before anything was written (no database, FILE exists): exit 2. */
export class BackupRefusedError extends Error {
  override readonly name = 'BackupRefusedError';
}

interface BackupReport {
  file: string;
  bytes: number;
  /** The copy's schema version (`PRAGMA user_version`). */
  userVersion: number;
  keys: number;
  sessions: number;
}

/** Copies the database of `dataDir` into `file` (mode 0600); refuses an existing `file` unless `force`. */
export function backupSqlite(dataDir: string, file: string, force: boolean): BackupReport {
  const source = path.join(path.resolve(dataDir), DB_FILE);
  const target = path.resolve(file);
  if (!existsSync(source))
    throw new BackupRefusedError(`no database in the data dir ${path.resolve(dataDir)} (no ${DB_FILE}); is --data-dir right?`);
  if (target === source) throw new BackupRefusedError('the backup file cannot be the database itself');
  if (existsSync(target) && !force) throw new BackupRefusedError(`${target} exists: choose another file, or add --force to replace it`);
  const dir = path.dirname(target);
  if (!existsSync(dir) || !statSync(dir).isDirectory()) throw new BackupRefusedError(`the folder ${dir} does not exist`);
  const temp = path.join(dir, `.${path.basename(target)}.${randomBytes(6).toString('hex')}.partial`);
  // Created empty and private before SQLite writes into it (VACUUM INTO takes an empty file and keeps its mode).
  closeSync(openSync(temp, 'wx', 0o600));
  chmodSync(temp, 0o600);
  try {
    const db = new Database(source, { fileMustExist: true });
    try {
      db.pragma('busy_timeout = 5000');
      db.prepare('VACUUM INTO ?').run(temp);
    } finally {
      db.close();
    }
    const report = check(temp, target);
    const fd = openSync(temp, 'r+');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
    if (force) {
      renameSync(temp, target);
    } else {
      // A link fails if FILE appeared meanwhile: never replaced unless asked.
      linkSync(temp, target);
      rmSync(temp);
    }
    syncDir(dir);
    return report;
  } finally {
    rmSync(temp, { force: true });
    rmSync(`${temp}-journal`, { force: true });
  }
}

/** Opens the copy read-only: whole (integrity check), and what it holds. */
function check(copy: string, target: string): BackupReport {
  const db = new Database(copy, { readonly: true, fileMustExist: true });
  try {
    const integrity = db.pragma('integrity_check', { simple: true });
    if (integrity !== 'ok') throw new Error(`the copy failed its integrity check: ${String(integrity)}`);
    const count = (table: string): number => db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0;
    return {
      file: target,
      bytes: statSync(copy).size,
      userVersion: Number(db.pragma('user_version', { simple: true })),
      keys: count('api_keys'),
      sessions: count('sessions'),
    };
  } finally {
    db.close();
  }
}

function syncDir(dir: string): void {
  try {
    const fd = openSync(dir, 'r');
    try {
      fsyncSync(fd);
    } finally {
      closeSync(fd);
    }
  } catch {
    // Not every file system lets a directory be flushed; the file itself was.
  }
}
