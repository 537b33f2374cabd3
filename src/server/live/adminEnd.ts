/**
 * An administrator's "end session" (`DELETE /v1/sessions/<id>`), on the instance that holds the session:
 * ended from outside (endSession.ts: every pending word delivered as `final` first, then `AUTH_ERROR`
 * "session ended by an administrator"), not resumable. Told by the HTTP request here, or by another
 * instance over the revocation feed's channel.
 */
import { OUTSIDE_ENDS } from './endSession';
import type { SessionRegistry } from './registry';
import type { SessionStore } from '../storage/stores';

/** Ends the session if this instance holds it live; whether it did. */
export async function endHeldSession(registry: SessionRegistry, store: SessionStore, sessionId: string): Promise<boolean> {
  const s = registry.lookup(sessionId);
  if (!s?.isLive) return false;
  s.log.info('session ended by an administrator');
  await registry.endSession(s, OUTSIDE_ENDS.admin);
  await store.dropResumeData(sessionId);
  return true;
}
