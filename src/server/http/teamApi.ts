/** The team endpoints' context (usage, audit, the end of a session held elsewhere), and an audited action of the API. */
import type { IncomingMessage } from 'node:http';
import type { AuditEntry } from '../storage/audit';
import type { Team } from '../storage/team';
import type { RevocationFeed } from '../storage/stores';
import type { Timing } from '../timing';
import type { ApiContext, TeamApi } from './context';

export function teamApi(team: Team | undefined, feed: RevocationFeed, timing: Timing): TeamApi | undefined {
  if (!team) return undefined;
  return {
    usage: team.usage,
    audit: team.audit,
    ...(feed.announceSessionEnd ? { announceSessionEnd: (id: string) => feed.announceSessionEnd!(id) } : {}),
    // The holder waits for the decoder at most endFlushMs, then records the end.
    endWaitMs: timing.endFlushMs + 5000,
  };
}

/**
 * Records what the master key did (today's only key manager) in the audit log, and waits until it is
 * written (never failing the request: a write that fails is kept and retried by the log).
 */
export async function audited(
  ctx: ApiContext,
  req: IncomingMessage,
  action: AuditEntry['action'],
  target: string,
  actor = 'master',
): Promise<void> {
  if (!ctx.team) return;
  ctx.team.audit.record({ actor, action, target, ip: ctx.clientAddress(req), outcome: 'success' });
  await ctx.team.audit.written();
}
