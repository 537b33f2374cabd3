/** What the HTTP API works with: the stores and limits, the session registry, the log, the client's address, the counters. */
import type { IncomingMessage } from 'node:http';
import type { ServiceCounters } from '../counters';
import type { Engine } from '../engine/engine';
import type { ServerLogger } from '../log';
import type { LoopDelay } from './loopDelay';
import type { Readiness } from './readiness';
import type { SessionRegistry } from '../live/registry';
import type { KeyStore, Limits, SessionStore } from '../storage/stores';
import type { AuditSink } from '../storage/auditSink';
import type { KeyExpiryWatch } from '../live/keyExpiry';
import type { AuditLog } from '../storage/audit';
import type { UsageReader } from '../storage/usage';
import type { DashboardData } from '../storage/dashboardData';
import type { Invites } from '../storage/invites';

/** Usage, session listings, the audit log, and the end of a session held by another instance. */
export interface TeamApi {
  usage: UsageReader;
  audit: AuditLog;
  /** The dashboard's reads (storage/dashboardData.ts). */
  dashboard: DashboardData;
  /** The dashboard's one-time sign-up codes (storage/invites.ts). */
  invites: Invites;
  announceSessionEnd?: (sessionId: string) => Promise<void>;
  /** How long a DELETE waits for another instance to end the session (ms). */
  endWaitMs: number;
}

export interface ApiContext {
  keys: KeyStore;
  store: SessionStore;
  limits: Limits;
  registry: SessionRegistry;
  log: ServerLogger;
  /** The engine: its name and languages, and whether decoding is behind real time (`GET /healthz`). */
  engine: Engine;
  /** The service is shutting down: only the health check answers. */
  draining(): boolean;
  /** Operational figures for GET /v1/status (master key). */
  status(): object;
  /** Event-loop delay since the previous GET /healthz. */
  loopDelay(): LoopDelay | undefined;
  /** The request's client address (clientAddress.ts: the socket's, or X-Forwarded-For's under --trust-proxy). */
  clientAddress(req: IncomingMessage): string;
  /** Where the errors answered are counted (the metrics). */
  counters: ServiceCounters;
  /** GET /readyz: whether the instance takes new sessions (not draining, its backends answer). */
  readiness(): Promise<Readiness>;
  /** Where the actions on keys, people, projects and organisations are told (storage/auditSink.ts). */
  audit: AuditSink;
  /** Ends the sessions of a key at its expiry (live/keyExpiry.ts). */
  expiry: Pick<KeyExpiryWatch, 'watch'>;
  /** Usage and audit (absent in a service built without them: their endpoints answer 404). */
  team?: TeamApi;
}
