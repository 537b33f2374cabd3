/**
 * The keep-alive of the connections, on the monotonic clock (a step of the wall clock drops nobody): pings
 * the peers; cuts those silent beyond the pong timeout; closes sessions that received no audio for the
 * idle limit (SESSION_IDLE: their pending text flushed, still resumable).
 */
import { monotonicMs } from '../clock';
import type { Timing } from '../timing';
import type { Connection } from './connection';

export function keepAlive(connections: Iterable<Connection>, t: Timing, now = monotonicMs()): void {
  for (const conn of [...connections]) {
    if (conn.closing) continue;
    if (now - conn.lastSeen >= t.pongTimeoutMs) {
      conn.log.warn('peer silent: connection dropped', { silent_ms: Math.round(now - conn.lastSeen) });
      conn.terminate();
      continue;
    }
    const s = conn.session;
    if (s && s.peer === conn && s.isLive && !conn.held && now - conn.lastAudioAt >= t.idleTimeoutMs) {
      conn.log.info('session idle: closed', { idle_ms: Math.round(now - conn.lastAudioAt), state: s.state });
      conn.fail(
        'SESSION_IDLE',
        `no audio for ${Math.round(t.idleTimeoutMs / 1000)} s: the session is closed to free its slot; resume it to go on (nothing is lost)`,
      );
      continue;
    }
    if (now - conn.lastPing >= t.pingIntervalMs) {
      conn.lastPing = now;
      try {
        conn.ws.ping();
      } catch {
        /* closing */
      }
    }
  }
}
