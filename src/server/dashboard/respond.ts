/** How dashboard routes answer: a page (no-store), a redirect after a POST (303), an error page, a form's body. */
import type { Html } from './html';
import { html } from './html';
import type { DashReq } from './context';
import { page } from './layout';
import { readBody } from '../http/util';

/** Thrown by a route for a clear refusal shown as a page (403 CSRF, 404…). */
export class DashError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
  }
}

export function sendHtml(r: DashReq, status: number, doc: Html, headers: Record<string, string> = {}): void {
  const body = Buffer.from(doc.value, 'utf8');
  r.res.writeHead(status, {
    'content-type': 'text/html; charset=utf-8',
    'content-length': String(body.length),
    'cache-control': 'no-store',
    ...headers,
  });
  r.res.end(r.req.method === 'HEAD' ? undefined : body);
}

/** A page of the dashboard (the layout around `body`). */
export function sendPage(r: DashReq, title: string, body: Html, status = 200): void {
  sendHtml(r, status, page(r, title, body));
}

/** 303 See Other: the answer to every POST (POST-redirect-GET), to a path of the dashboard. */
export function redirect(r: DashReq, location: string): void {
  r.res.writeHead(303, { location, 'cache-control': 'no-store', 'content-length': '0' });
  r.res.end();
}

export function sendErrorPage(r: DashReq, e: DashError): void {
  sendPage(
    r,
    r.l10n.t('Error'),
    html`<p role="alert" class="error">${e.message}</p>
      <p><a href="/dashboard">${r.l10n.t('Back to the dashboard')}</a></p>`,
    e.status,
  );
}

/** The form of a POST: application/x-www-form-urlencoded only (a 415 page else). */
export async function readForm(r: DashReq): Promise<URLSearchParams> {
  const type = (r.req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/x-www-form-urlencoded') {
    r.req.resume();
    throw new DashError(415, r.l10n.t('This form must be sent by the page.'));
  }
  return new URLSearchParams(await readBody(r.req));
}
