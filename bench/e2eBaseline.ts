/**
 * The end-to-end bench's (e2e.bench.ts) figures and its baseline: the session's configuration, the
 * percentiles, and the bare `ws` client that streams the same audio through the same proxy.
 */
import WebSocket from 'ws';
import { now } from '../test/e2e/lib/tap';
import { sleep } from '../test/helpers/wait';

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i]!;
}

export function stats(xs: number[]): { n: number; p50: number; p95: number; p99: number; max: number; mean: number } {
  const s = [...xs].sort((a, b) => a - b);
  return {
    n: s.length,
    p50: percentile(s, 50),
    p95: percentile(s, 95),
    p99: percentile(s, 99),
    max: s[s.length - 1] ?? NaN,
    mean: s.reduce((a, b) => a + b, 0) / (s.length || 1),
  };
}

export const CONFIG = {
  language: 'en',
  specialty: 'general',
  sample_rate: 16000,
  encoding: 'pcm_s16le',
  engine_endpointing: 0.05,
  silence_threshold: 2,
  max_buffer_size: 1,
  flush_timeout: 10,
  enable_final_proofreading: false,
  stop_delay: 0.5,
};

/** The bare client: streams `pcm` in real time (100 ms frames) and stamps each `final` it receives. */
export async function baselineClient(wsUrl: string, key: string, pcm: Buffer): Promise<Map<string, number>> {
  const got = new Map<string, number>();
  const ws = new WebSocket(wsUrl, { headers: { authorization: `Bearer ${key}`, 'x-dictee-tap': 'baseline' } });
  ws.on('message', (data, isBinary) => {
    if (isBinary) return;
    const t = now();
    const m = JSON.parse(data.toString()) as { type: string; status?: string; id?: string };
    if (m.type === 'transcript' && m.status === 'final' && m.id) got.set(m.id, t);
  });
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  const configured = new Promise<void>((resolve) =>
    ws.on('message', (d, bin) => {
      if (!bin && (JSON.parse(d.toString()) as { type: string }).type === 'configured') resolve();
    }),
  );
  ws.send(JSON.stringify({ type: 'configure', config: CONFIG }));
  await configured;
  ws.send(JSON.stringify({ type: 'control', action: 'start' }));
  const start = Date.now();
  for (let off = 0, i = 0; off < pcm.length; off += 3200, i++) {
    ws.send(pcm.subarray(off, Math.min(off + 3200, pcm.length)));
    const wait = start + (i + 1) * 100 - Date.now();
    if (wait > 0) await sleep(wait);
  }
  await sleep(1500);
  const stopped = new Promise<void>((resolve) => ws.once('close', () => resolve()));
  ws.send(JSON.stringify({ type: 'control', action: 'stop' }));
  await Promise.race([stopped, sleep(5000)]);
  ws.close();
  return got;
}

export type Stats = ReturnType<typeof stats>;
