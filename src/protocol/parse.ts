/**
 * Parsing of wire messages into typed values or specific, human-readable failures.
 * Both sides use these: the service for client messages, the client for service messages.
 */
import { z } from 'zod';
import { ConfigSchema } from './config';
import { ErrorCode } from './errors';
import {
  ClientMessage,
  ConfigureMessageSchema,
  ControlMessageSchema,
  MAX_TEXT_FRAME_BYTES,
  ServerMessage,
  ServerMessageSchema,
} from './messages';
import { errorMessage } from '../shared/errors';

type ParseResult<T> = { ok: true; value: T } | { ok: false; code: ErrorCode; message: string; field?: string };

/** First issue of a zod error, with the dotted path of the field it is about. */
export function describeZodError(error: z.ZodError, prefix = ''): { message: string; field?: string } {
  const issue = error.issues[0];
  if (!issue) return { message: 'invalid value' };
  let path = issue.path.map(String);
  if (issue.code === 'unrecognized_keys' && issue.keys.length > 0) path = [...path, issue.keys[0]!];
  const field = [prefix, ...path].filter((s) => s !== '').join('.') || undefined;
  let message = issue.message;
  if (field && !message.includes(field.split('.').pop()!)) message = `${field}: ${message}`;
  return { message, field };
}

/**
 * Parses one text frame from a client. Malformed JSON, a non-object, a missing or unknown
 * `type`, or a malformed `control` give PROTOCOL_ERROR; a bad `config` gives CONFIG_ERROR
 * naming the field.
 */
export function parseClientMessage(text: string): ParseResult<ClientMessage> {
  if (Buffer.byteLength(text, 'utf8') > MAX_TEXT_FRAME_BYTES) {
    return { ok: false, code: 'PROTOCOL_ERROR', message: `text frame larger than ${MAX_TEXT_FRAME_BYTES} bytes` };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, code: 'PROTOCOL_ERROR', message: `malformed JSON: ${errorMessage(e)}` };
  }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    return { ok: false, code: 'PROTOCOL_ERROR', message: 'a message must be a JSON object with a "type" field' };
  }
  const type = (raw as { type?: unknown }).type;
  if (typeof type !== 'string') {
    return { ok: false, code: 'PROTOCOL_ERROR', message: 'a message must have a string "type" field' };
  }
  if (type === 'configure') {
    const config = (raw as { config?: unknown }).config;
    if (config !== undefined) {
      const parsed = ConfigSchema.safeParse(config);
      if (!parsed.success) {
        const d = describeZodError(parsed.error, 'config');
        return { ok: false, code: 'CONFIG_ERROR', message: `invalid configuration: ${d.message}`, field: d.field };
      }
    }
    const msg = ConfigureMessageSchema.parse(raw);
    return { ok: true, value: msg };
  }
  if (type === 'control') {
    const parsed = ControlMessageSchema.safeParse(raw);
    if (!parsed.success) {
      const d = describeZodError(parsed.error);
      return { ok: false, code: 'PROTOCOL_ERROR', message: `invalid control message: ${d.message}`, field: d.field };
    }
    return { ok: true, value: parsed.data };
  }
  return {
    ok: false,
    code: 'PROTOCOL_ERROR',
    message: `unknown message type ${JSON.stringify(type.slice(0, 40))}; expected "configure" or "control"`,
  };
}

/**
 * Parses one text frame from the service. Unknown message types are reported (not thrown) so a
 * client can log and skip them.
 */
export function parseServerMessage(text: string): { ok: true; value: ServerMessage } | { ok: false; message: string } {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    return { ok: false, message: `malformed JSON from service: ${errorMessage(e)}` };
  }
  const parsed = ServerMessageSchema.safeParse(raw);
  if (!parsed.success) {
    return { ok: false, message: `unexpected message from service: ${describeZodError(parsed.error).message}` };
  }
  return { ok: true, value: parsed.data };
}
