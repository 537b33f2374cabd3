/**
 * Readiness (`GET /readyz`, and the metrics' `dictee_ready`): whether this instance should be given new
 * sessions now. Not while it drains (shutdown), nor while its store or Redis does not answer: a new session
 * would be refused with 503 anyway. Liveness is `GET /healthz`, which says nothing of the backends (a
 * supervisor must not restart an instance because PostgreSQL is down).
 */
import type { BackendCheck, BackendName } from '../storage/health';
import { checkBackends } from '../storage/health';

export interface Readiness {
  ready: boolean;
  draining: boolean;
  /** Each backend of this instance and whether it answers. */
  backends: Partial<Record<BackendName, boolean>>;
}

export async function readiness(checks: readonly BackendCheck[], draining: boolean): Promise<Readiness> {
  const backends = await checkBackends(checks);
  const ready = !draining && Object.values(backends).every((up) => up);
  return { ready, draining, backends };
}
