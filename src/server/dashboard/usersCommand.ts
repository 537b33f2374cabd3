/**
 * `node dist/server.js users add …` (subcommands.ts, docs/server.md): reads the password from standard input
 * (never from the command line, where `ps` would show it), hashes it with argon2id, and adds or updates
 * the person in the service's store (storage/usersAdd.ts), audited with the command line as the actor (`cliActor`).
 */
import os from 'node:os';
import { UsageError, parseCommandLine } from '../../shared/args';
import { errorMessage } from '../../shared/errors';
import { UsersAddError, addUser } from '../storage/usersAdd';
import { ORG_ROLES, type OrgRole } from '../storage/teams';
import { MIN_PASSWORD_LENGTH, hashPassword } from './passwords';

type Out = (line: string) => void;

/** An operating system's user name as an audit actor may hold it (the audit page's filter takes these characters). */
const OS_USER = /^[A-Za-z0-9_.-]{1,64}$/;

/** The user this process runs as, or undefined when the system has no name for it (a container's bare uid). */
function osUser(): string | undefined {
  try {
    return os.userInfo().username;
  } catch {
    return undefined;
  }
}

/**
 * The audit's actor for the command line on the host: `cli:<user>`, the operating system's user who ran it,
 * or `cli` when that user has no name or one with other characters.
 */
export function cliActor(user = osUser()): string {
  return user !== undefined && OS_USER.test(user) ? `cli:${user}` : 'cli';
}

/** Standard input's first line (the password), without its line end. */
async function readStdinLine(): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of process.stdin) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString('utf8').split(/\r?\n/)[0] ?? '';
}

export async function usersCommand(
  argv: string[],
  env: NodeJS.ProcessEnv,
  out: Out,
  err: Out,
  readPassword = readStdinLine,
): Promise<number> {
  const { values: v, positionals } = parseCommandLine(
    argv,
    {
      email: { type: 'string' },
      role: { type: 'string' },
      'password-stdin': { type: 'boolean' },
      org: { type: 'string' },
      name: { type: 'string' },
      'data-dir': { type: 'string' },
      database: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
    true,
  );
  if (positionals.length !== 1 || positionals[0] !== 'add')
    throw new UsageError('users takes one action, add: node dist/server.js users add --email E --role owner --password-stdin');
  const email = (v.email ?? '').trim();
  if (!/^[^\s@]+@[^\s@]+$/.test(email)) throw new UsageError('users add needs --email with an email address');
  if (!v.role || !(ORG_ROLES as readonly string[]).includes(v.role))
    throw new UsageError(`users add needs --role: ${ORG_ROLES.join(', ')}`);
  if (!v['password-stdin'])
    throw new UsageError('users add reads the password from standard input: give --password-stdin (never a password on the command line)');
  const password = await readPassword();
  if (password.length < MIN_PASSWORD_LENGTH) {
    err(`error: the password must have at least ${MIN_PASSWORD_LENGTH} characters; nothing was changed\n`);
    return 2;
  }
  try {
    const r = await addUser(
      { dataDir: v['data-dir'] ?? './.dictee-data', databaseUrl: (v.database ?? env.DICTEE_DATABASE_URL) || undefined },
      {
        email,
        role: v.role as OrgRole,
        passwordHash: await hashPassword(password),
        ...(v.org ? { orgId: v.org } : {}),
        ...(v.name ? { name: v.name } : {}),
      },
      cliActor(),
    );
    out(
      `${r.created ? 'person added' : 'password and role set'}: ${r.personId} (${email}, ${v.role}) in organisation ${r.orgId}; sign in at /dashboard\n`,
    );
    return 0;
  } catch (e) {
    err(`error: ${e instanceof UsersAddError ? e.message : errorMessage(e)}\n`);
    return e instanceof UsersAddError ? 2 : 1;
  }
}
