/**
 * The process's active handles and requests, counted by type (`process.getActiveResourcesInfo()`:
 * `TCPSocketWrap`, `Timeout`, `FSReqCallback`…), for GET /v1/status: read from outside, before and after a
 * load, they show whether sockets or timers are left behind (`npm run soak`).
 */
export function activeResources(): Record<string, number> {
  const out: Record<string, number> = {};
  for (const type of process.getActiveResourcesInfo()) out[type] = (out[type] ?? 0) + 1;
  return out;
}
