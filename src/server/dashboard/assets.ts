/**
 * The browser's files of the dashboard (dist/dashboard/: the script bundled by esbuild from browser/, the
 * style sheet), served under a URL holding a hash of their content, so that they may be cached for a year.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

interface Asset {
  url: string;
  type: string;
  body: Buffer;
}

export class Assets {
  private readonly byUrl = new Map<string, Asset>();
  readonly script: string;
  readonly style: string;

  /** `dir`: where the built files are (beside dist/server.js). A file missing is served empty (logged by the caller). */
  constructor(dir: string = path.join(__dirname, 'dashboard')) {
    this.script = this.add(dir, 'dashboard.js', 'text/javascript; charset=utf-8');
    this.style = this.add(dir, 'dashboard.css', 'text/css; charset=utf-8');
  }

  private add(dir: string, file: string, type: string): string {
    const f = path.join(dir, file);
    const body = existsSync(f) ? readFileSync(f) : Buffer.alloc(0);
    const hash = createHash('sha256').update(body).digest('hex').slice(0, 12);
    const ext = path.extname(file);
    const url = `/dashboard/assets/${path.basename(file, ext)}.${hash}${ext}`;
    this.byUrl.set(url, { url, type, body });
    return url;
  }

  get(url: string): Asset | undefined {
    return this.byUrl.get(url);
  }
}
