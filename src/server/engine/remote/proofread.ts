/**
 * `--proofread-url`: a second pass on each finished sentence by an OpenAI-style
 * `POST /v1/audio/transcriptions` endpoint (whisper.cpp server, Speaches, vLLM): the sentence's audio
 * as a WAV file in a multipart form (`file`, `response_format=json`, `language`, and `model` when
 * DICTEE_PROOFREAD_MODEL is set), answered by `{"text": "…"}`. Its text becomes the sentence's
 * `batch.replace`. The same credential and CA as the engine (the key in its own header scheme,
 * `--proofread-auth`); the answer is bounded in size and time.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import https from 'node:https';
import { wavOf } from '../../../shared/wavFile';
import { type AuthScheme, authHeader } from './auth';
import { shownUrl } from './upstream';

export interface ProofreadSettings {
  url: string;
  apiKey?: string;
  /** How the key is presented (auth.ts); `bearer` when absent. */
  auth?: AuthScheme;
  ca?: Buffer;
  model?: string;
  timeoutMs: number;
}

const MAX_ANSWER_BYTES = 256 * 1024;

/** The sentence's text from the endpoint; rejects on any failure (the first pass then stands). */
export function transcribeSentence(s: ProofreadSettings, pcm: Buffer, rate: number, language: string): Promise<string> {
  const boundary = `dictee-${randomBytes(12).toString('hex')}`;
  const field = (name: string, value: string): string =>
    `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`;
  const fields = [
    field('response_format', 'json'),
    ...(language !== 'any' ? [field('language', language)] : []),
    ...(s.model ? [field('model', s.model)] : []),
  ].join('');
  const body = Buffer.concat([
    Buffer.from(
      `${fields}--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="sentence.wav"\r\nContent-Type: audio/wav\r\n\r\n`,
    ),
    wavOf(pcm, rate),
    Buffer.from(`\r\n--${boundary}--\r\n`),
  ]);
  const url = new URL(s.url);
  const mod = url.protocol === 'https:' ? https : http;
  return new Promise((resolve, reject) => {
    const req = mod.request(
      url,
      {
        method: 'POST',
        headers: {
          'Content-Type': `multipart/form-data; boundary=${boundary}`,
          'Content-Length': body.length,
          ...authHeader(s.auth ?? 'bearer', s.apiKey),
        },
        timeout: s.timeoutMs,
        ...(s.ca && url.protocol === 'https:' ? { ca: s.ca } : {}),
      },
      (res) => {
        const parts: Buffer[] = [];
        let size = 0;
        res.on('data', (d: Buffer) => {
          size += d.length;
          if (size > MAX_ANSWER_BYTES) req.destroy(new Error('the proofreading answer is too large'));
          else parts.push(d);
        });
        res.on('end', () => {
          if (res.statusCode !== 200)
            return reject(new Error(`the proofreading endpoint ${shownUrl(s.url)} answered HTTP ${res.statusCode}`));
          try {
            const v = JSON.parse(Buffer.concat(parts).toString('utf8')) as { text?: unknown };
            if (typeof v.text !== 'string') throw new Error('no text');
            resolve(v.text);
          } catch {
            reject(new Error('the proofreading endpoint sent no JSON text'));
          }
        });
        res.on('error', reject);
      },
    );
    req.on('timeout', () => req.destroy(new Error(`the proofreading endpoint gave no answer within ${s.timeoutMs} ms`)));
    req.on('error', (e) => reject(new Error(`the proofreading endpoint failed: ${(e as { code?: string }).code ?? e.message}`)));
    req.end(body);
  });
}
