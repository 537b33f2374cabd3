/** What the team endpoints share: parsing a body against a schema (field-named CONFIG_ERROR), and a new id. */
import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import type { z } from 'zod';
import { describeZodError } from '../../protocol';
import { KeyRequestError } from '../storage/stores';
import { TeamRequestError } from '../storage/teams';
import { HttpError, parseJsonBody, readBody } from './util';

export async function parseBody<S extends z.ZodType>(req: IncomingMessage, schema: S): Promise<z.infer<S>> {
  const body = parseJsonBody(await readBody(req));
  const parsed = schema.safeParse(body ?? {});
  if (!parsed.success) throw HttpError.of('CONFIG_ERROR', describeZodError(parsed.error).message);
  return parsed.data;
}

/** Runs `f`; a request that contradicts what is stored becomes its field-named CONFIG_ERROR. */
export async function asConfigError<T>(f: () => Promise<T>): Promise<T> {
  try {
    return await f();
  } catch (e) {
    if (e instanceof KeyRequestError || e instanceof TeamRequestError) throw HttpError.of('CONFIG_ERROR', e.message);
    throw e;
  }
}

export function newId(prefix: 'org' | 'person' | 'proj'): string {
  return `${prefix}_${randomUUID()}`;
}

export const now = (): string => new Date().toISOString();
