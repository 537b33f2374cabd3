/** Scrapes a service's metrics listener (`--metrics-port`) and reads the Prometheus text format. */

/** Every sample of a scrape, by its name and labels as written (`dictee_errors_total{code="NOT_FOUND"}`). */
export type Samples = Map<string, number>;

export function parseMetrics(text: string): Samples {
  const out: Samples = new Map();
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const at = line.lastIndexOf(' ');
    out.set(line.slice(0, at), Number(line.slice(at + 1)));
  }
  return out;
}

export async function scrape(port: number, host = '127.0.0.1'): Promise<Samples> {
  const res = await fetch(`http://${host}:${port}/metrics`);
  const text = await res.text();
  if (res.status !== 200) throw new Error(`GET /metrics: HTTP ${res.status} ${text}`);
  if (!/^text\/plain; version=0\.0\.4/.test(res.headers.get('content-type') ?? ''))
    throw new Error(`content-type ${res.headers.get('content-type')}`);
  return parseMetrics(text);
}

/** One sample's value; throws when the scrape does not have it (a metric renamed is a failure, not a 0). */
export function sample(samples: Samples, name: string): number {
  const v = samples.get(name);
  if (v === undefined) throw new Error(`no sample ${name} in the scrape`);
  return v;
}

/** How much a sample grew from `before` to `after`. */
export function grew(before: Samples, after: Samples, name: string): number {
  return sample(after, name) - sample(before, name);
}
