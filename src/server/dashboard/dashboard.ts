/**
 * The dashboard served by the service at `/dashboard` (docs/dashboard.md): what app.ts calls for each
 * request under that path, and the periodic purge of the sign-in sessions that ended. `GET /` redirects
 * to it. Off with `--no-dashboard` (DICTEE_DASHBOARD=off): then both paths answer as the API does (404).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ApiContext } from '../http/context';
import { parseRequestUrl } from '../http/util';
import type { DashboardStore } from '../storage/dashboard';
import { Assets } from './assets';
import type { DashboardContext } from './context';
import type { DashboardSignIn } from './signInSetup';
import { handleDashboard, isDashboardPath } from './router';
import { DEFAULT_SESSION_POLICY, type SessionPolicy } from './sessionRules';

export class Dashboard {
  private readonly ctx: DashboardContext;
  private readonly timer: NodeJS.Timeout;

  constructor(api: ApiContext, store: DashboardStore, opts: { policy?: SessionPolicy; assetsDir?: string } & DashboardSignIn = {}) {
    this.ctx = { api, store, assets: new Assets(opts.assetsDir), policy: opts.policy ?? DEFAULT_SESSION_POLICY, now: () => Date.now() };
    if (opts.sso) this.ctx.sso = opts.sso;
    if (opts.secondFactor) this.ctx.secondFactor = opts.secondFactor;
    this.timer = setInterval(() => void this.purge(), 10 * 60_000);
    this.timer.unref();
  }

  /** Whether this request is the dashboard's (its paths, and `GET /`). */
  owns(req: IncomingMessage): boolean {
    const url = parseRequestUrl(req.url);
    if (!url) return false;
    const get = req.method === 'GET' || req.method === 'HEAD';
    return isDashboardPath(url.pathname) || (get && (url.pathname === '/' || url.pathname === '/favicon.ico'));
  }

  async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const url = parseRequestUrl(req.url)!;
    if (url.pathname === '/favicon.ico') {
      // No icon: an empty answer rather than a 404 in the browser's console.
      res.writeHead(204, { 'cache-control': 'public, max-age=86400' });
      res.end();
      return;
    }
    if (url.pathname === '/') {
      res.writeHead(302, { location: '/dashboard', 'cache-control': 'no-store', 'content-length': '0' });
      res.end();
      return;
    }
    await handleDashboard(this.ctx, req, res, url);
  }

  private async purge(): Promise<void> {
    const now = this.ctx.now();
    try {
      await this.ctx.store.purge(
        new Date(now - this.ctx.policy.idleMs).toISOString(),
        new Date(now - this.ctx.policy.absoluteMs).toISOString(),
      );
    } catch (e) {
      this.ctx.api.log.warn('could not purge the ended dashboard sessions', { error: e instanceof Error ? e.message : String(e) });
    }
  }

  close(): void {
    clearInterval(this.timer);
  }
}
