/** Requests of the usage, session listing and audit endpoints, and a dictation of an exact length of audio. */
import { spawn } from 'node:child_process';
import { SERVER_JS, type TestServer, WsProbe } from './server';
import { framesOf, tone } from './speech';

export interface Answer {
  status: number;
  text: string;
  json: Record<string, unknown>;
}

export async function call(base: string, method: string, path: string, token?: string): Promise<Answer> {
  const res = await fetch(`${base}${path}`, { method, headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    /* CSV, JSON lines */
  }
  return { status: res.status, text, json };
}

/** Sends `seconds` of audio as fast as the socket takes it, then stops; resolves with the session id and the messages. */
export async function dictateFast(
  server: TestServer | { wsUrl: string },
  key: string,
  seconds: number,
): Promise<{ id: string; probe: WsProbe }> {
  const probe = new WsProbe(server.wsUrl, { header: key });
  const configured = await probe.configure({ language: 'en' });
  const bytes = Math.round(seconds * 16000) * 2;
  for (const f of framesOf(tone(Math.ceil(seconds * 1000)).subarray(0, bytes))) probe.sendAudio(f);
  await probe.roundTrip();
  probe.send({ type: 'control', action: 'stop' });
  await probe.closed;
  return { id: String(configured.session_id), probe };
}

/** Runs `node dist/server.js …args` to its end: its exit code and output. */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; out: string; err: string }> {
  return new Promise((resolve) => {
    const p = spawn(process.execPath, [SERVER_JS, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    p.stdout.on('data', (d: Buffer) => (out += d.toString()));
    p.stderr.on('data', (d: Buffer) => (err += d.toString()));
    p.on('close', (code) => resolve({ code, out, err }));
  });
}
