/** The team endpoints' context (usage, audit, the end of a session held elsewhere). */
import type { Team } from '../storage/team';
import type { RevocationFeed } from '../storage/stores';
import type { Timing } from '../timing';
import type { TeamApi } from './context';

export function teamApi(team: Team | undefined, feed: RevocationFeed, timing: Timing): TeamApi | undefined {
  if (!team) return undefined;
  return {
    usage: team.usage,
    audit: team.audit,
    dashboard: team.dashboard,
    invites: team.invites,
    ...(feed.announceSessionEnd ? { announceSessionEnd: (id: string) => feed.announceSessionEnd!(id) } : {}),
    // The holder waits for the decoder at most endFlushMs, then records the end.
    endWaitMs: timing.endFlushMs + 5000,
  };
}
