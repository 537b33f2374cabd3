/**
 * The service's subcommands, `node dist/server.js <subcommand> …`, each a short task on the service's store
 * that ends (today `backup`; others join the table). `runSubcommand` says undefined when the command line
 * is not a subcommand's, so that main.ts starts the service.
 */
import { errorMessage } from '../shared/errors';
import { UsageError, parseCommandLine } from '../shared/args';
import { BackupRefusedError, backupSqlite } from './storage/backup';
import { AuditVerifyError, verifyAudit } from './storage/auditVerify';
import { usersCommand } from './dashboard/usersCommand';

export const SUBCOMMAND_USAGE = `Subcommands:
  backup FILE [--data-dir DIR] [--force]
                         copy the SQLite database of DIR (default ./.dictee-data) into FILE, online
                         (while the service runs), mode 0600; an existing FILE is kept unless --force.
                         With --database (PostgreSQL), use pg_dump instead. Restore: docs/server.md
  audit verify [--data-dir DIR | --database URL]
                         check the audit log's hash chains (each organisation's, from its anchor to its
                         head); prints the first broken link and exits 1, or exits 0 when every link holds
  users add --email E --role owner|admin|member --password-stdin [--org ID] [--name N]
            [--data-dir DIR | --database URL]
                         a person who signs in to the dashboard (/dashboard) with this email and the
                         password read from standard input (one line); in the organisation the master
                         key's key listing shows unless --org; the service may be running. An existing
                         person of that email gets the password and role (their sign-ins end)
`;

type Out = (line: string) => void;

const SUBCOMMANDS: Record<string, (argv: string[], env: NodeJS.ProcessEnv, out: Out, err: Out) => Promise<number>> = {
  backup,
  audit,
  users: usersCommand,
};

/** Runs the subcommand `argv[0]` and resolves with its exit status, or with undefined when `argv[0]` is none. */
export async function runSubcommand(argv: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number | undefined> {
  const name = argv[0];
  const run = name !== undefined && Object.hasOwn(SUBCOMMANDS, name) ? SUBCOMMANDS[name] : undefined;
  if (!run) return undefined;
  try {
    return await run(argv.slice(1), env, out, err);
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    err(`error: ${e.message}\n\n${SUBCOMMAND_USAGE}`);
    return 2;
  }
}

async function backup(argv: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values: v, positionals } = parseCommandLine(
    argv,
    { 'data-dir': { type: 'string' }, database: { type: 'string' }, force: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (v.help) {
    out(SUBCOMMAND_USAGE);
    return 0;
  }
  if ((v.database ?? env.DICTEE_DATABASE_URL) || undefined) {
    err(
      'error: backup copies the SQLite store of a data dir; with --database (PostgreSQL) use pg_dump ' +
        '(e.g. pg_dump --format=custom --file=dictee.dump "$DICTEE_DATABASE_URL"), docs/deploy.md\n',
    );
    return 2;
  }
  if (positionals.length !== 1 || positionals[0] === '')
    throw new UsageError('backup takes one FILE: node dist/server.js backup FILE [--data-dir DIR]');
  const dataDir = v['data-dir'] ?? './.dictee-data';
  try {
    const r = backupSqlite(dataDir, positionals[0]!, v.force === true);
    out(
      `backup written: ${r.file} (${r.bytes} bytes, schema version ${r.userVersion}, ${r.keys} API keys, ${r.sessions} session records)\n`,
    );
    return 0;
  } catch (e) {
    err(`error: ${e instanceof BackupRefusedError ? e.message : `backup failed, nothing written: ${errorMessage(e)}`}\n`);
    return e instanceof BackupRefusedError ? 2 : 1;
  }
}

async function audit(argv: string[], env: NodeJS.ProcessEnv, out: Out, err: Out): Promise<number> {
  const { values: v, positionals } = parseCommandLine(
    argv,
    { 'data-dir': { type: 'string' }, database: { type: 'string' }, help: { type: 'boolean', short: 'h' } },
    true,
  );
  if (v.help) {
    out(SUBCOMMAND_USAGE);
    return 0;
  }
  if (positionals.length !== 1 || positionals[0] !== 'verify')
    throw new UsageError('audit takes one action, verify: node dist/server.js audit verify [--data-dir DIR | --database URL]');
  const databaseUrl = (v.database ?? env.DICTEE_DATABASE_URL) || undefined;
  try {
    const r = await verifyAudit({ dataDir: v['data-dir'] ?? './.dictee-data', databaseUrl });
    if (r.ok) {
      out(`audit log intact: ${r.entries} entries in ${r.chains} chain(s) of ${r.where}\n`);
      return 0;
    }
    const b = r.broken!;
    err(`audit log broken: organisation ${b.org_id}, entry ${b.seq}: ${b.reason} (${r.entries} entries verified before it)\n`);
    return 1;
  } catch (e) {
    err(`error: ${e instanceof AuditVerifyError ? e.message : errorMessage(e)}\n`);
    return 2;
  }
}
