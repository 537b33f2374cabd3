/**
 * The dashboard through plain HTTP, as `curl` with a cookie jar drives it: the sign-in form's own token and
 * cookie, the session cookie kept, each page's `_csrf` read from its form, redirects not followed (their
 * `Location` is what a test checks). No browser: for requests sent at the same moment on several instances.
 */
import assert from 'node:assert/strict';

export interface PageAnswer {
  status: number;
  text: string;
  location: string | null;
}

export class DashboardClient {
  private readonly cookies = new Map<string, string>();

  constructor(readonly base: string) {}

  private keep(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (value === '' || /max-age=0/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  private cookieHeader(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }

  async get(path: string): Promise<PageAnswer> {
    const res = await fetch(`${this.base}${path}`, { headers: { cookie: this.cookieHeader() }, redirect: 'manual' });
    this.keep(res);
    return { status: res.status, text: await res.text(), location: res.headers.get('location') };
  }

  async post(path: string, fields: Record<string, string>): Promise<PageAnswer> {
    const res = await fetch(`${this.base}${path}`, {
      method: 'POST',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
      redirect: 'manual',
    });
    this.keep(res);
    return { status: res.status, text: await res.text(), location: res.headers.get('location') };
  }

  /** Signs in through the form (its `_signin` token and cookie); fails the test when the sign-in is refused. */
  async signIn(email: string, password: string): Promise<void> {
    const form = await this.get('/dashboard/sign-in');
    const token = /name="_signin" value="([^"]+)"/.exec(form.text)?.[1];
    assert.ok(token, 'the sign-in form carries its token');
    const done = await this.post('/dashboard/sign-in', { _signin: token, email, password, next: '/dashboard/keys' });
    assert.equal(done.status, 303, `signed in as ${email}: ${done.text.slice(0, 300)}`);
    assert.equal(done.location, '/dashboard/keys');
  }

  /** The `_csrf` of the forms of a signed-in page. */
  async csrf(path: string): Promise<string> {
    const page = await this.get(path);
    assert.equal(page.status, 200, `${path}: ${page.text.slice(0, 300)}`);
    const token = /name="_csrf" value="([^"]+)"/.exec(page.text)?.[1];
    assert.ok(token, `${path} has a form with its CSRF token`);
    return token;
  }
}
