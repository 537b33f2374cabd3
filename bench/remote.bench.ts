/**
 * Overhead of the remote path: the built service with `--engine realtime` in front of the loopback FAKE
 * realtime server (vLLM dialect), against the same fake reached directly by a bare client in the same
 * run. Both stream the same recorded dictation (LibriVox recordings with 1.5 s pauses) at real time in
 * 100 ms frames, and both close an utterance at the same pause rule (0.4 s of silence):
 *
 * - frame → streaming text: from sending the newest frame to receiving text with a new word (direct:
 *   a `transcription.delta`; service: a `streaming` event through the client library);
 * - end of speech → final words of the utterance: from sending the recording's last voiced frame to
 *   receiving its final words (direct: `transcription.done` after the bare client's commit; service:
 *   the `interim` that carries them, the service's own commit at `engine_endpointing` 0.4 s), and to
 *   the `final` (the sentence end at `silence_threshold` 1 s).
 *
 * The fake answers at once: what is measured is the service's own cost (its segmenter, its two socket
 * hops, the client library), not a recogniser's. Then the service's CPU time per second of audio with
 * several sessions at once (real-time sessions per service core), beside the simulated engine.
 */
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import WebSocket from 'ws';
import { DictationSession } from '../src/client/session';
import { FakeRealtime } from '../test/helpers/fakeRealtime';
import { voicedMs } from '../test/helpers/fakeUpstream';
import { dictation } from '../test/helpers/remote';
import { recordings } from '../test/helpers/recordings';
import type { BenchSection } from './run';

const FRAME = 3200;
const ROUNDS = 2;
/** Sessions at once, and how many times real time they stream, for the service's own cost. */
const SESSIONS = 8;
const SPEED = 4;

interface Sample {
  streamMs: number[];
  endMs: number[];
  finalMs: number[];
}

/**
 * For each recording of the dictation: the frame holding its last voiced 20 ms window (the end of speech),
 * and the frame in which 0.4 s of silence after that window is complete (where the bare client commits,
 * as the service's segmenter ends the utterance there).
 */
function landmarks(pauseMs: number): Array<{ lastVoiced: number; commitAt: number }> {
  const recs = recordings()
    .filter((r) => r.name !== 'goforward')
    .slice(0, 3);
  const out: Array<{ lastVoiced: number; commitAt: number }> = [];
  const WIN = 640; // bytes of 20 ms at 16 kHz
  let base = 0; // bytes
  for (const r of recs) {
    let last = 0;
    for (let w = 0; (w + 1) * WIN <= r.pcm.length; w++) if (voicedMs(r.pcm.subarray(w * WIN, (w + 1) * WIN), 16000) > 0) last = w;
    const endOfSpeech = base + last * WIN;
    const pauseDone = base + (last + 1) * WIN + 0.4 * 32000;
    out.push({ lastVoiced: Math.floor(endOfSpeech / FRAME), commitAt: Math.ceil(pauseDone / FRAME) - 1 });
    base += r.pcm.length + pauseMs * 32;
  }
  return out;
}

async function paced(pcm: Buffer, send: (frame: Buffer, n: number) => void): Promise<number[]> {
  const sentAt: number[] = [];
  const t0 = performance.now();
  for (let n = 0; n * FRAME < pcm.length; n++) {
    sentAt.push(performance.now());
    send(pcm.subarray(n * FRAME, (n + 1) * FRAME), n);
    const wait = t0 + (n + 1) * 100 - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
  }
  return sentAt;
}

async function direct(fake: FakeRealtime, pcm: Buffer, marks: ReturnType<typeof landmarks>): Promise<Sample> {
  const ws = new WebSocket(fake.url);
  const s: Sample = { streamMs: [], endMs: [], finalMs: [] };
  let sentAt: number[] = [];
  let lastSent = 0;
  let utterance = 0;
  let holding: string[] | undefined;
  ws.on('message', (data) => {
    const m = JSON.parse(String(data)) as { type: string };
    const now = performance.now();
    if (m.type === 'transcription.delta') s.streamMs.push(now - lastSent);
    if (m.type === 'transcription.done') {
      const mark = marks[utterance++];
      if (mark && sentAt[mark.lastVoiced] !== undefined) s.endMs.push(now - sentAt[mark.lastVoiced]!);
      ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
      for (const h of holding ?? []) ws.send(h);
      holding = undefined;
    }
  });
  await new Promise((r) => ws.once('open', r));
  ws.send(JSON.stringify({ type: 'session.update', model: 'bench' }));
  ws.send(JSON.stringify({ type: 'input_audio_buffer.commit' }));
  const commits = new Set(marks.map((m) => m.commitAt));
  const times: number[] = [];
  sentAt = times;
  await paced(pcm, (frame, n) => {
    times[n] = lastSent = performance.now();
    const msg = JSON.stringify({ type: 'input_audio_buffer.append', audio: frame.toString('base64') });
    if (holding) holding.push(msg);
    else ws.send(msg);
    if (commits.has(n)) {
      ws.send(JSON.stringify({ type: 'input_audio_buffer.commit', final: true }));
      holding = [];
    }
  });
  ws.close();
  return s;
}

interface Service {
  url: string;
  key: string;
  pid: number;
  stop: () => void;
}

async function startService(engineArgs: string[]): Promise<Service> {
  const masterKey = `master_${randomBytes(24).toString('base64url')}`;
  const child = spawn(
    process.execPath,
    [
      path.join(__dirname, '..', 'dist', 'server.js'),
      '--port',
      '0',
      '--data-dir',
      mkdtempSync(path.join(os.tmpdir(), 'dictee-bench-remote-')),
      '--concurrency-limit',
      '100',
      ...engineArgs,
    ],
    {
      env: { ...process.env, DICTEE_MASTER_KEY: masterKey, DICTEE_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (b: Buffer) => {
      out += b.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.once('exit', (code) => reject(new Error(`service exited ${code}`)));
  });
  const res = await fetch(`${url}/v1/api-keys`, {
    method: 'POST',
    headers: { authorization: `Bearer ${masterKey}`, 'content-type': 'application/json' },
    body: JSON.stringify({ name: 'bench', type: 'personal' }),
  });
  const { key } = (await res.json()) as { key: string };
  return { url, key, pid: child.pid!, stop: () => child.kill('SIGTERM') };
}

/** CPU seconds (user + system) a process has used so far (Linux /proc). */
function cpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** `sessions` clients stream the dictation at once, `speed` × real time: the service's CPU seconds per second of audio. */
async function serviceCost(service: Service, pcm: Buffer, sessions: number, speed: number): Promise<number> {
  const clients = Array.from(
    { length: sessions },
    () =>
      new DictationSession({
        serverUrl: service.url,
        apiKey: service.key,
        config: { language: 'en', engine_endpointing: 0.4, silence_threshold: 1 },
      }),
  );
  await Promise.all(clients.map((c) => c.start()));
  const cpu0 = cpuSeconds(service.pid);
  await Promise.all(
    clients.map(async (c) => {
      const t0 = performance.now();
      for (let n = 0; n * FRAME < pcm.length; n++) {
        c.sendAudio(pcm.subarray(n * FRAME, (n + 1) * FRAME));
        const wait = t0 + ((n + 1) * 100) / speed - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
      }
      await c.stop();
      c.dispose();
    }),
  );
  const cpu = cpuSeconds(service.pid) - cpu0;
  return cpu / ((sessions * pcm.length) / 32000);
}

async function viaService(service: Service, pcm: Buffer, marks: ReturnType<typeof landmarks>): Promise<Sample> {
  const s: Sample = { streamMs: [], endMs: [], finalMs: [] };
  const session = new DictationSession({
    serverUrl: service.url,
    apiKey: service.key,
    config: { language: 'en', engine_endpointing: 0.4, silence_threshold: 1 },
  });
  let sentAt: number[] = [];
  let lastSent = 0;
  const words = new Map<string, number>();
  let interims = 0;
  let finals = 0;
  const seen = new Set<string>();
  session.on('message', (m) => {
    if (m.type !== 'transcript') return;
    const now = performance.now();
    const n = m.text.split(/\s+/).filter(Boolean).length;
    if (m.status === 'streaming' && n > (words.get(m.id) ?? 0)) s.streamMs.push(now - lastSent);
    words.set(m.id, n);
    // The first interim or final after each recording's end of speech.
    const mark = marks[interims];
    if (m.status === 'interim' && mark && sentAt[mark.lastVoiced] !== undefined && sentAt.length > mark.lastVoiced) {
      s.endMs.push(now - sentAt[mark.lastVoiced]!);
      interims++;
    }
    const fmark = marks[finals];
    if (m.status === 'final' && !seen.has(m.id) && fmark && sentAt.length > fmark.lastVoiced) {
      seen.add(m.id);
      s.finalMs.push(now - sentAt[fmark.lastVoiced]!);
      finals++;
    }
  });
  await session.start();
  const times: number[] = [];
  sentAt = times;
  await paced(pcm, (frame, n) => {
    times[n] = lastSent = performance.now();
    session.sendAudio(frame);
  });
  await session.stop();
  session.dispose();
  return s;
}

const median = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length ? a[Math.floor(a.length / 2)]! : NaN;
};
const p90 = (xs: number[]): number => {
  const a = [...xs].sort((x, y) => x - y);
  return a.length ? a[Math.min(a.length - 1, Math.floor(a.length * 0.9))]! : NaN;
};
const f0 = (n: number): string => (Number.isFinite(n) ? n.toFixed(0) : '–');

export async function run(): Promise<BenchSection> {
  const d = dictation(3, 1500);
  const marks = landmarks(1500);
  const fake = await new FakeRealtime({ dialect: 'vllm', words: d.words, msPerWord: d.msPerWord, perConnection: true }).start();
  const service = await startService(['--engine', 'realtime', '--engine-url', fake.url, '--engine-model', 'bench']);
  let remoteCost = NaN;
  let simulatedCost = NaN;
  const direct_: Sample = { streamMs: [], endMs: [], finalMs: [] };
  const served: Sample = { streamMs: [], endMs: [], finalMs: [] };
  try {
    for (let r = 0; r < ROUNDS; r++) {
      const a = await direct(fake, d.pcm, marks);
      const b = await viaService(service, d.pcm, marks);
      for (const k of ['streamMs', 'endMs', 'finalMs'] as const) {
        direct_[k].push(...a[k]);
        served[k].push(...b[k]);
      }
    }
    remoteCost = await serviceCost(service, d.pcm, SESSIONS, SPEED);
  } finally {
    service.stop();
    await fake.stop();
  }
  const simulated = await startService(['--engine', 'simulated']);
  try {
    simulatedCost = await serviceCost(simulated, d.pcm, SESSIONS, SPEED);
  } finally {
    simulated.stop();
  }
  const row = (what: string, a: number[], b: number[]): string =>
    `| ${what} | ${f0(median(a))} / ${f0(p90(a))} (${a.length}) | ${f0(median(b))} / ${f0(p90(b))} (${b.length}) | ${f0(median(b) - median(a))} | ${(median(b) / median(a)).toFixed(2)} |`;
  const audioS = (d.pcm.length / 32000).toFixed(1);
  return {
    title: 'Remote engine overhead (realtime protocol, fake upstream)',
    markdown: [
      `The same ${audioS} s dictation (3 LibriVox recordings, 1.5 s pauses, ${d.words.length} words), streamed at real time in`,
      `100 ms frames, ${ROUNDS} rounds each, alternating: directly to the loopback fake vLLM-dialect realtime server by a bare`,
      'client, and through the built service (`--engine realtime`) with the client library. Both close an utterance at',
      '0.4 s of silence. Milliseconds, median / 90th percentile (samples). The fake answers at once: the difference is',
      "the service's own cost. Only fakes ran here (no real recogniser can run on this machine), and the machine is",
      'shared with other jobs (see the load average): read the difference, not the absolute figures.',
      '',
      '| measure | direct to the fake | through the service | service − direct | ratio |',
      '|---|---|---|---|---|',
      row('frame → streaming text', direct_.streamMs, served.streamMs),
      row("end of speech → the utterance's final words (direct: `transcription.done`; service: `interim`)", direct_.endMs, served.endMs),
      `| end of speech → \`final\` (service: sentence end at \`silence_threshold\` 1 s) | – | ${f0(median(served.finalMs))} / ${f0(p90(served.finalMs))} (${served.finalMs.length}) | – | – |`,
      '',
      `The service's own cost when recognition is elsewhere: ${SESSIONS} sessions at once stream the dictation at ${SPEED}× real`,
      "time through the client library; the service process's CPU time (user + system, /proc) per second of audio, and",
      'what it gives as real-time sessions per service core (before any headroom), beside the simulated engine in the',
      'same run (its segmenter in the event loop, no upstream).',
      '',
      '| engine | CPU ms per audio second | real-time sessions per core | ratio to simulated |',
      '|---|---|---|---|',
      `| \`realtime\` (fake upstream) | ${(remoteCost * 1000).toFixed(1)} | ${f0(1 / remoteCost)} | ${(remoteCost / simulatedCost).toFixed(2)} |`,
      `| \`simulated\` | ${(simulatedCost * 1000).toFixed(1)} | ${f0(1 / simulatedCost)} | 1.00 |`,
      '',
    ].join('\n'),
  };
}
