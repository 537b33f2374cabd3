/** What the HTTP API works with: the stores and limits, the session registry, the log. */
import type { ServerLogger } from '../log';
import type { SessionRegistry } from '../registry';
import type { KeyStore, Limits, SessionStore } from '../stores';

export interface ApiContext {
  keys: KeyStore;
  store: SessionStore;
  limits: Limits;
  registry: SessionRegistry;
  log: ServerLogger;
  engineName: string;
  /** The service is shutting down: only the health check answers. */
  draining(): boolean;
  /** Operational figures for GET /v1/status (master key). */
  status(): object;
}
