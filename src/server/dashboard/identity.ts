/**
 * Who is signed in: the session cookie read, its session checked (idle and absolute timeouts, the person
 * still there), and the person made an actor of the key-management code (http/actor.ts) with the scope an
 * `admin` personal key of theirs would have (http/scope.ts): an owner or admin of the organisation reaches
 * all of it; anyone else their own keys and those of the projects they administer. Never wider than the
 * keys API gives that person. Also `requireFreshSignIn` for the actions that need the password again.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Actor } from '../http/actor';
import type { ApiKey } from '../storage/stores';
import type { Person } from '../storage/teams';
import type { AuthedReq, DashReq, SignedIn } from './context';
import { SESSION_COOKIE, isFresh, needsTouch, parseCookies, sessionCookie, sessionState } from './sessionRules';

export function sha256(s: string): string {
  return createHash('sha256').update(s).digest('hex');
}

export function newToken(): string {
  return randomBytes(32).toString('base64url');
}

/** The audit's actor for a person acting in the dashboard. */
export function personActorId(personId: string): string {
  return `person:${personId}`;
}

/** The person as the key-management code's actor: the scope and permissions of an `admin` personal key of theirs. */
async function personActor(r: DashReq, person: Person): Promise<Actor> {
  const key: ApiKey = {
    id: personActorId(person.id),
    name: '',
    type: 'personal',
    projectId: null,
    permissions: ['read', 'write', 'admin'],
    environment: 'live',
    orgId: person.org_id,
    createdAt: person.created_at,
    revokedAt: null,
    hint: '',
    personId: person.id,
    personRole: person.role,
    expiresAt: null,
    rolledFrom: null,
  };
  const adminProjects = new Set(
    (await r.ctx.api.keys.teams.memberships(person.id)).filter((m) => m.role === 'admin').map((m) => m.project_id),
  );
  return { acting: key, id: key.id, key, adminProjects, ip: r.ip };
}

/** Why no one is signed in: no cookie or an unknown one, or a session that ended by a timeout. */
type NoSession = 'none' | 'timed_out';

/** The signed-in person of a request, or why there is none. Touches the session (at most once a minute). */
export async function signedIn(r: DashReq): Promise<SignedIn | NoSession> {
  const token = parseCookies(r.req.headers.cookie).get(SESSION_COOKIE);
  if (!token || !/^[A-Za-z0-9_-]{43}$/.test(token)) return 'none';
  const idHash = sha256(token);
  const session = await r.ctx.store.session(idHash);
  if (!session) return 'none';
  const now = r.ctx.now();
  if (sessionState(session, now, r.ctx.policy) !== 'active') {
    await r.ctx.store.deleteSession(idHash);
    return 'timed_out';
  }
  const person = await r.ctx.api.keys.teams.getPerson(session.person_id);
  if (!person) {
    await r.ctx.store.deleteSession(idHash);
    return 'none';
  }
  if (needsTouch(session, now)) {
    session.seen_at = new Date(now).toISOString();
    await r.ctx.store.touchSession(idHash, session.seen_at);
  }
  return { person, session, idHash, token, actor: await personActor(r, person) };
}

/** Clears the session cookie in the answer. */
export function clearSessionCookie(r: DashReq): void {
  r.res.appendHeader('set-cookie', sessionCookie(SESSION_COOKIE, '', 0));
}

/**
 * For the actions that need the password typed again recently (revoking everything, exporting the audit
 * log): true when the sign-in is fresh; else answers with a redirect to the sign-in page (which comes back to
 * `back`, a path of the dashboard) and resolves false: the caller returns at once.
 */
export function requireFreshSignIn(r: AuthedReq, back: string = r.url.pathname + r.url.search): boolean {
  if (isFresh(r.who.session, r.ctx.now(), r.ctx.policy)) return true;
  const next = back.startsWith('/dashboard') ? back : '/dashboard';
  r.res.writeHead(303, { location: `/dashboard/sign-in?reauth=1&next=${encodeURIComponent(next)}`, 'cache-control': 'no-store' });
  r.res.end();
  return false;
}
