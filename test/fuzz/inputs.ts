/**
 * Generated and mutated inputs for the fuzzing campaign (`npm run fuzz`), from a seeded random source so
 * that a finding can be replayed with its seed. Pure: no sockets here.
 */
import { BOUNDS, CONTROL_ACTIONS, LANGUAGES, PRESETS, SPECIALTIES } from '../../src/protocol';

/** mulberry32: small, fast, seeded. */
export class Rng {
  private s: number;
  constructor(seed: number) {
    this.s = seed >>> 0;
  }
  next(): number {
    this.s = (this.s + 0x6d2b79f5) >>> 0;
    let t = this.s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  }
  int(lo: number, hi: number): number {
    return lo + Math.floor(this.next() * (hi - lo + 1));
  }
  pick<T>(xs: readonly T[]): T {
    return xs[Math.floor(this.next() * xs.length)]!;
  }
  chance(p: number): boolean {
    return this.next() < p;
  }
}

/** A WebSocket frame the fuzzer sends: text (a string or raw bytes sent as a text frame) or binary. */
export type Frame = { kind: 'text'; data: string } | { kind: 'rawtext'; data: Buffer } | { kind: 'binary'; data: Buffer };

const ODD_VALUES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1,
  0.5,
  -0.0001,
  1e308,
  -1e308,
  Number.MAX_SAFE_INTEGER,
  2 ** 31,
  2 ** 53,
  '',
  ' ',
  'x',
  '0',
  '1e3',
  '\u0000',
  '\ud800',
  '🙂',
  'A'.repeat(300),
  [],
  [1],
  {},
  { a: 1 },
  { __proto__: { polluted: true } },
  'constructor',
  '__proto__',
];

function oddValue(r: Rng): unknown {
  if (r.chance(0.1)) return r.next() * r.pick([1, 10, 100, 1e6]) * (r.chance(0.5) ? -1 : 1);
  return r.pick(ODD_VALUES);
}

/** A value near a field's bounds: inside, on, or just outside. */
function nearBound(r: Rng, field: keyof typeof BOUNDS): number {
  const b = BOUNDS[field];
  return r.pick([
    b.min,
    b.max,
    b.min - 1e-9,
    b.max + 1e-9,
    b.min - 1,
    b.max + 1,
    (b.min + b.max) / 2,
    Math.round((b.min + b.max) / 2) + 0.5,
  ]);
}

/** A `config` object: mostly well-formed fields with some wrong types, values and unknown fields. */
export function config(r: Rng): Record<string, unknown> {
  const c: Record<string, unknown> = {};
  const n = r.int(0, 5);
  for (let i = 0; i < n; i++) {
    switch (r.int(0, 9)) {
      case 0:
        c.language = r.chance(0.7) ? r.pick(LANGUAGES) : oddValue(r);
        break;
      case 1:
        c.specialty = r.chance(0.7) ? r.pick(SPECIALTIES) : oddValue(r);
        break;
      case 2:
        c.preset = r.chance(0.7) ? r.pick(PRESETS) : oddValue(r);
        break;
      case 3: {
        const f = r.pick(Object.keys(BOUNDS) as Array<keyof typeof BOUNDS>);
        c[f] = r.chance(0.7) ? nearBound(r, f) : oddValue(r);
        break;
      }
      case 4:
        c.encoding = r.chance(0.5) ? 'pcm_s16le' : oddValue(r);
        break;
      case 5:
        c.enable_final_proofreading = r.chance(0.7) ? r.chance(0.5) : oddValue(r);
        break;
      case 6:
        c.resume = r.chance(0.5)
          ? { session_id: r.chance(0.5) ? 'no-such-session' : oddValue(r), last_seq: r.chance(0.5) ? r.int(0, 100) : oddValue(r) }
          : oddValue(r);
        break;
      case 7:
        c[r.pick(['colour', 'model', 'token', 'x'.repeat(200), ''])] = oddValue(r);
        break;
      default:
        c.sample_rate = r.chance(0.6) ? r.pick([8000, 16000, 22050, 44100, 48000, 11025, 7999, 48001]) : oddValue(r);
    }
  }
  return c;
}

/** JSON nested `depth` levels deep (arrays or objects). */
export function deepJson(depth: number, r: Rng): string {
  const open = r.chance(0.5) ? '[' : '{"a":';
  const close = open === '[' ? ']' : '}';
  return `{"type":"control","action":${open.repeat(depth)}1${close.repeat(depth)}}`;
}

/** Replaces, inserts or deletes a few characters of a text. */
export function mutateText(r: Rng, text: string): string {
  let t = text;
  const n = r.int(1, 4);
  for (let i = 0; i < n; i++) {
    const at = r.int(0, t.length);
    const ch = r.pick(['"', '{', '}', '[', ']', ',', ':', '\\', '\u0000', 'é', '9', ' ', 'null', '\ud83d']);
    switch (r.int(0, 2)) {
      case 0:
        t = t.slice(0, at) + ch + t.slice(at + 1);
        break;
      case 1:
        t = t.slice(0, at) + ch + t.slice(at);
        break;
      default:
        t = t.slice(0, at) + t.slice(at + r.int(1, 5));
    }
  }
  return t;
}

/** Bytes that are not valid UTF-8 (lone continuation, overlong, surrogate, truncated sequence). */
export function invalidUtf8(r: Rng): Buffer {
  const bad = r.pick([[0x80], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xf4, 0x90, 0x80, 0x80], [0xe2, 0x82], [0xff], [0xfe, 0xff]]);
  const prefix = Buffer.from(r.chance(0.5) ? '{"type":"control","action":"' : '{"type":"configure","config":{"language":"');
  return Buffer.concat([prefix, Buffer.from(bad), Buffer.from('"}')]);
}

export function controlMessage(r: Rng): string {
  return JSON.stringify({ type: 'control', action: r.pick(CONTROL_ACTIONS) });
}

/** One hostile text frame: a message of every type with wrong types and bounds, huge and deep JSON, mutations. */
export function hostileText(r: Rng): Frame {
  switch (r.int(0, 11)) {
    case 0:
      return { kind: 'text', data: JSON.stringify({ type: 'configure', config: config(r) }) };
    case 1:
      return { kind: 'text', data: JSON.stringify({ type: 'control', action: oddValue(r) }) };
    case 2:
      return { kind: 'text', data: JSON.stringify({ type: oddValue(r), action: 'start' }) };
    case 3:
      return { kind: 'text', data: deepJson(r.pick([10, 100, 1000, 5000]), r) };
    case 4:
      return {
        kind: 'text',
        data: JSON.stringify({ type: 'control', action: 'start', pad: 'x'.repeat(r.pick([1000, 16 * 1024 - 40, 16 * 1024, 40_000])) }),
      };
    case 5:
      return { kind: 'rawtext', data: invalidUtf8(r) };
    case 6:
      return {
        kind: 'text',
        data: mutateText(r, r.chance(0.5) ? controlMessage(r) : JSON.stringify({ type: 'configure', config: config(r) })),
      };
    case 7:
      return { kind: 'text', data: r.pick(['', ' ', 'null', '[]', '"configure"', '1', '{}', '{"type":null}', 'true']) };
    case 8:
      return {
        kind: 'text',
        data: JSON.stringify({ type: r.pick(['transcript', 'batch.replace', 'status', 'error', 'configured']), seq: 1 }),
      };
    case 9:
      return { kind: 'text', data: `{"type":"control","action":"start"${',"k":1'.repeat(r.int(1, 2000))}}` };
    case 10:
      return { kind: 'text', data: JSON.stringify({ type: 'configure', config: config(r), extra: oddValue(r) }) };
    default:
      return { kind: 'text', data: controlMessage(r) };
  }
}

/** An audio frame of an odd or extreme size, or an ordinary one. */
export function audioFrame(r: Rng): Buffer {
  const size = r.chance(0.6)
    ? r.pick([0, 2, 320, 3200, 6400])
    : r.pick([1, 3, 5, 3199, 3201, 65_535, 65_536, 65_537, 65_538, 131_072, 262_145, r.int(0, 70_000)]);
  const b = Buffer.alloc(size);
  if (r.chance(0.5)) for (let i = 0; i + 1 < size; i += 2) b.writeInt16LE(Math.round(Math.sin(i / 20) * 8000), i);
  return b;
}

const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'HEAD', 'OPTIONS', 'PATCH', 'CONNECT', 'TRACE', 'G\u00e9T', 'get', ''];
const PATHS = [
  '/healthz',
  '/api/v1/live/sessions',
  '/v1/live/sessions',
  '/v1/api-keys',
  '/v1/api-keys/key_x',
  '/v1/sessions/x',
  '/api/v1/audio/live',
  '/',
  '//',
  '//[',
  '/%',
  '/%zz',
  '/v1/sessions/%E0%A4%A',
  '/v1/api-keys/%zz',
  '/v1/sessions/%00',
  '/v1/sessions/..%2f..%2fetc%2fpasswd',
  '/api/v1/audio/live?token=%',
  '/healthz?%=%',
  `/${'a'.repeat(8000)}`,
  '*',
  'http://x/healthz',
  '/v1/sessions/\u00e9',
  '/api/v1/live/sessions/',
  '/v1/api-keys//',
  '/healthz#frag',
];

/**
 * One raw HTTP request: odd methods, paths, percent-encodings, headers, bodies and upgrade requests.
 * `complete` is false when the request announces more body than it sends (the service rightly waits).
 */
export function httpRequest(r: Rng, auth: { key: string; master: string }): { text: string; complete: boolean } {
  const method = r.pick(METHODS);
  let target = r.pick(PATHS);
  if (r.chance(0.3)) target = mutateText(r, target).replace(/[\r\n ]/g, '%');
  const headers: string[] = ['Host: 127.0.0.1'];
  const who = r.int(0, 4);
  if (who === 1) headers.push(`Authorization: Bearer ${auth.key}`);
  if (who === 2) headers.push(`Authorization: Bearer ${auth.master}`);
  if (who === 3) headers.push(`x-svc-key: ${r.chance(0.5) ? auth.key : 'svc_live_' + 'x'.repeat(r.int(0, 200))}`);
  if (who === 4) headers.push(`Authorization: ${r.pick(['Bearer', 'Basic abc', 'Bearer  ', `Bearer ${'a'.repeat(5000)}`])}`);
  if (r.chance(0.25))
    headers.push('Connection: Upgrade', 'Upgrade: websocket', 'Sec-WebSocket-Version: 13', 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==');
  if (r.chance(0.1)) headers.push(`X-Junk: ${'j'.repeat(r.pick([10, 1000, 20_000]))}`);
  let body = '';
  if (r.chance(0.4)) {
    body = r.pick([
      '{}',
      '{',
      '[1]',
      'null',
      '{"name":"x","type":"personal"}',
      '{"name":1}',
      'x'.repeat(r.pick([10, 70_000])),
      JSON.stringify({ a: config(r) }),
    ]);
    if (r.chance(0.2)) body = mutateText(r, body);
  }
  const bodyBytes = Buffer.byteLength(body);
  let complete = true;
  switch (r.int(0, 5)) {
    case 0: {
      const declared = Math.max(0, bodyBytes + r.pick([-1, 1, 1000]));
      headers.push(`Content-Length: ${declared}`);
      complete = declared <= bodyBytes;
      break;
    }
    case 1:
      headers.push(`Content-Length: ${r.pick(['abc', '-5', '99999999999', '1, 2'])}`);
      break;
    case 2:
      headers.push('Transfer-Encoding: chunked');
      body = r.chance(0.5) ? `${bodyBytes.toString(16)}\r\n${body}\r\n0\r\n\r\n` : `zz\r\n${body}\r\n`;
      break;
    default:
      if (bodyBytes) headers.push(`Content-Length: ${bodyBytes}`);
  }
  headers.push('Connection: close');
  const version = r.chance(0.95) ? 'HTTP/1.1' : r.pick(['HTTP/1.0', 'HTTP/2.0', 'HTTP/9', 'FOO']);
  return { text: `${method} ${target} ${version}\r\n${headers.join('\r\n')}\r\n\r\n${body}`, complete };
}
