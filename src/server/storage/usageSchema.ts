/**
 * Schema version 4, on SQLite and PostgreSQL alike: what usage and the audit log keep.
 *
 * - `api_keys.last_used_at`: when the key was last let in (null until its first use; written at most once a
 *   minute per key, in batches: lastUsed.ts);
 * - `sessions.audio_seconds`: the audio the session received (bytes of PCM / 2 / sample rate), written with
 *   its end;
 * - `usage_daily`: the rollup `GET /v1/usage` reads, one row per organisation, UTC day of the session's
 *   creation, key and end code ('' for a session that ended without an error); kept up to date by a trigger
 *   on `sessions` (in the same transaction as the session's end, so it is as durable as the record), and
 *   kept when retention deletes the records. Only sessions that started (a WebSocket took them) count: an
 *   HTTP init never connected is no dictation. A session that ends twice (ended by a shutdown, then resumed
 *   after the restart and ended again) has its first contribution taken back;
 * - `audit_log`, `audit_heads`, `audit_anchors`: the audit log, one hash chain per organisation (audit.ts).
 */

/** The code a session's end counts under in `errors` (its `end_reason` → an error code, or '' for none). */
export const END_CODE = (col: string): string =>
  `CASE ${col} WHEN 'key revoked' THEN 'AUTH_ERROR' WHEN 'key expired' THEN 'AUTH_ERROR' WHEN 'decoder failure' THEN 'INTERNAL_ERROR' ELSE '' END`;

/** The rollup built from the records already there (an upgraded database; the usage bench's seeding). */
export const USAGE_BACKFILL = `INSERT INTO usage_daily (org_id, day, key_id, code, sessions, audio_seconds)
  SELECT org_id, substr(created_at, 1, 10), key_id, ${END_CODE('end_reason')}, count(*), sum(COALESCE(audio_seconds, 0))
  FROM sessions WHERE ended_at IS NOT NULL AND started_at IS NOT NULL
  GROUP BY 1, 2, 3, 4`;

const AUDIT_TABLES = `
CREATE TABLE audit_log (
  org_id TEXT NOT NULL, seq BIGINT NOT NULL, at TEXT NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,
  target TEXT, ip TEXT, outcome TEXT NOT NULL, prev_hash TEXT NOT NULL, hash TEXT NOT NULL,
  PRIMARY KEY (org_id, seq));
CREATE INDEX audit_log_at ON audit_log (at);
CREATE TABLE audit_heads (org_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL);
CREATE TABLE audit_anchors (org_id TEXT PRIMARY KEY, seq BIGINT NOT NULL, hash TEXT NOT NULL, pruned_at TEXT NOT NULL);
`;

const USAGE_TABLES = `
ALTER TABLE api_keys ADD COLUMN last_used_at TEXT;
ALTER TABLE api_keys ADD COLUMN expiry_audited_at TEXT;
ALTER TABLE sessions ADD COLUMN audio_seconds DOUBLE PRECISION;
CREATE INDEX sessions_created ON sessions (created_at, id);
CREATE INDEX sessions_org_created ON sessions (org_id, created_at, id);
CREATE INDEX sessions_key_created ON sessions (key_id, created_at, id);
CREATE INDEX sessions_http_waiting ON sessions (key_id, created_at) WHERE origin = 'http' AND started_at IS NULL;
CREATE TABLE usage_daily (
  org_id TEXT NOT NULL, day TEXT NOT NULL, key_id TEXT NOT NULL, code TEXT NOT NULL,
  sessions BIGINT NOT NULL DEFAULT 0, audio_seconds DOUBLE PRECISION NOT NULL DEFAULT 0,
  PRIMARY KEY (org_id, day, key_id, code));
`;

const SQLITE_TRIGGERS = `
CREATE TRIGGER sessions_usage_insert AFTER INSERT ON sessions
WHEN new.ended_at IS NOT NULL AND new.started_at IS NOT NULL
BEGIN
  INSERT INTO usage_daily (org_id, day, key_id, code, sessions, audio_seconds)
    VALUES (new.org_id, substr(new.created_at, 1, 10), new.key_id, ${END_CODE('new.end_reason')}, 1, COALESCE(new.audio_seconds, 0))
    ON CONFLICT DO UPDATE SET sessions = sessions + 1, audio_seconds = audio_seconds + excluded.audio_seconds;
END;
CREATE TRIGGER sessions_usage_end AFTER UPDATE OF ended_at, audio_seconds, end_reason ON sessions
WHEN new.ended_at IS NOT NULL AND new.started_at IS NOT NULL
BEGIN
  UPDATE usage_daily SET sessions = sessions - 1, audio_seconds = audio_seconds - COALESCE(old.audio_seconds, 0)
    WHERE old.ended_at IS NOT NULL AND old.started_at IS NOT NULL AND org_id = old.org_id
      AND day = substr(old.created_at, 1, 10) AND key_id = old.key_id AND code = ${END_CODE('old.end_reason')};
  INSERT INTO usage_daily (org_id, day, key_id, code, sessions, audio_seconds)
    VALUES (new.org_id, substr(new.created_at, 1, 10), new.key_id, ${END_CODE('new.end_reason')}, 1, COALESCE(new.audio_seconds, 0))
    ON CONFLICT DO UPDATE SET sessions = sessions + 1, audio_seconds = audio_seconds + excluded.audio_seconds;
END;
`;

const PG_TRIGGERS = `
CREATE FUNCTION dictee_usage_end() RETURNS trigger LANGUAGE plpgsql AS $fn$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.ended_at IS NOT NULL AND OLD.started_at IS NOT NULL THEN
    UPDATE usage_daily SET sessions = sessions - 1, audio_seconds = audio_seconds - COALESCE(OLD.audio_seconds, 0)
      WHERE org_id = OLD.org_id AND day = substr(OLD.created_at, 1, 10) AND key_id = OLD.key_id AND code = ${END_CODE('OLD.end_reason')};
  END IF;
  IF NEW.ended_at IS NOT NULL AND NEW.started_at IS NOT NULL THEN
    INSERT INTO usage_daily (org_id, day, key_id, code, sessions, audio_seconds)
      VALUES (NEW.org_id, substr(NEW.created_at, 1, 10), NEW.key_id, ${END_CODE('NEW.end_reason')}, 1, COALESCE(NEW.audio_seconds, 0))
      ON CONFLICT (org_id, day, key_id, code) DO UPDATE
      SET sessions = usage_daily.sessions + 1, audio_seconds = usage_daily.audio_seconds + EXCLUDED.audio_seconds;
  END IF;
  RETURN NULL;
END
$fn$;
CREATE TRIGGER sessions_usage AFTER INSERT OR UPDATE OF ended_at, audio_seconds, end_reason ON sessions
  FOR EACH ROW EXECUTE FUNCTION dictee_usage_end();
`;

export const SQLITE_USAGE_AUDIT = `${USAGE_TABLES.replace('DOUBLE PRECISION;', 'REAL;')}${SQLITE_TRIGGERS}${USAGE_BACKFILL};${AUDIT_TABLES}`;
export const PG_USAGE_AUDIT = `${USAGE_TABLES}${PG_TRIGGERS}${USAGE_BACKFILL};${AUDIT_TABLES}`;
