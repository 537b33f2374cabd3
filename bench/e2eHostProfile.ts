/**
 * DICTEE_E2E_CODE_SERVER_INSPECT=1 with DICTEE_BENCH_E2E_PROFILE=DIR: a CPU profile of VS Code's extension
 * host (code-server's Node processes started with `--inspect=127.0.0.1:0`; the extension host's port found by `ss`) through each phase, recorded through its
 * inspector (the Chrome DevTools protocol over a WebSocket), its heaviest functions by self time on the
 * console, and the time of the Dictée extension's own files in all.
 */
import { writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import WebSocket from 'ws';

/** The loopback port of the inspector of the extension host (a process whose command line has `--type=extensionHost`). */
function extensionHostPort(): number {
  const out = execFileSync('ss', ['-ltnpH'], { encoding: 'utf8' });
  for (const line of out.split('\n')) {
    const m = /127\.0\.0\.1:(\d+)\s.*pid=(\d+)/.exec(line);
    if (!m) continue;
    const cmd = (() => {
      try {
        return readFileSync(`/proc/${m[2]}/cmdline`, 'utf8');
      } catch {
        return '';
      }
    })();
    if (cmd.includes('--type=extensionHost')) return Number(m[1]);
  }
  throw new Error('no extension host with an inspector');
}

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  hitCount?: number;
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** Starts profiling the extension host; returns the function that stops it and prints its summary. */
export async function profileHost(label: string): Promise<() => Promise<void>> {
  const dir = process.env.DICTEE_BENCH_E2E_PROFILE;
  if (!process.env.DICTEE_E2E_CODE_SERVER_INSPECT || !dir) return async () => undefined;
  const port = extensionHostPort();
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json/list`)).json()) as Array<{ webSocketDebuggerUrl: string }>;
  const ws = new WebSocket(targets[0]!.webSocketDebuggerUrl);
  await new Promise<void>((resolve, reject) => ws.once('open', resolve).once('error', reject));
  let next = 1;
  const waiting = new Map<number, (r: unknown) => void>();
  ws.on('message', (raw) => {
    const m = JSON.parse(raw.toString()) as { id?: number; result?: unknown };
    if (m.id !== undefined) waiting.get(m.id)?.(m.result);
  });
  const send = (method: string, params: object = {}): Promise<unknown> =>
    new Promise((resolve) => {
      const id = next++;
      waiting.set(id, resolve);
      ws.send(JSON.stringify({ id, method, params }));
    });
  await send('Profiler.enable');
  await send('Profiler.setSamplingInterval', { interval: 200 });
  await send('Profiler.start');
  return async () => {
    const { profile } = (await send('Profiler.stop')) as { profile: Profile };
    ws.close();
    writeFileSync(`${dir}/host-${label.replace(/\W+/g, '-')}.cpuprofile`, JSON.stringify(profile));
    // Self time per node from the samples' time deltas.
    const self = new Map<number, number>();
    profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
    const byFn = new Map<string, number>();
    let ours = 0;
    let idle = 0;
    for (const n of profile.nodes) {
      const us = self.get(n.id) ?? 0;
      const file = n.callFrame.url.split('/').slice(-2).join('/');
      if (n.callFrame.url.includes('/dictee.dictee-')) ours += us;
      if (n.callFrame.functionName === '(idle)') idle += us;
      const key = `${n.callFrame.functionName || '(anonymous)'} ${file}:${n.callFrame.lineNumber}`;
      byFn.set(key, (byFn.get(key) ?? 0) + us);
    }
    const total = (profile.endTime - profile.startTime) / 1000;
    console.log(
      `    extension host, ${label}: ${total.toFixed(0)} ms profiled, busy ${(total - idle / 1000).toFixed(0)} ms, in Dictée's own code (self) ${(ours / 1000).toFixed(0)} ms`,
    );
    for (const [k, us] of [...byFn].sort((a, b) => b[1] - a[1]).slice(0, 30))
      console.log(`      ${(us / 1000).toFixed(1).padStart(8)} ms  ${k}`);
  };
}
