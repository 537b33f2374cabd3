/**
 * The command lines of the service and of the example client: Node's `util.parseArgs` (strict: an
 * unknown option or a missing value is an error), its errors said so that a person can act on them, and
 * the checks both need of a value (a whole number in a range, one of a list).
 */
import { parseArgs } from 'node:util';
import { errorMessage } from './errors';

/** A command line that cannot be used: the message says what is wrong; the caller prints it with the usage. */
export class UsageError extends Error {
  override readonly name = 'UsageError';
}

interface OptionSpec {
  type: 'string' | 'boolean';
  short?: string;
}

interface CommandLine<O extends Record<string, OptionSpec>> {
  values: { [K in keyof O]?: O[K]['type'] extends 'string' ? string : boolean };
  positionals: string[];
  /** The options given, in their order (for flags where the last one wins, such as `--fast`/`--realtime`). */
  order: Array<keyof O>;
}

/** Parses `argv` against `options` (`--flag value` and `--flag=value` alike); throws a UsageError. */
export function parseCommandLine<O extends Record<string, OptionSpec>>(
  argv: string[],
  options: O,
  allowPositionals = false,
): CommandLine<O> {
  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals, strict: true, tokens: true });
  } catch (e) {
    throw new UsageError(describe(e));
  }
  const order = (parsed.tokens ?? []).flatMap((t) => (t.kind === 'option' ? [t.name as keyof O] : []));
  return { values: { ...parsed.values } as CommandLine<O>['values'], positionals: parsed.positionals, order };
}

/** `util.parseArgs`'s error, said for this command line. */
function describe(e: unknown): string {
  const code = (e as { code?: unknown }).code;
  const message = errorMessage(e);
  const quoted = /'([^']*)'/.exec(message)?.[1] ?? '';
  const flag = /--[\w-]+/.exec(quoted)?.[0] ?? quoted;
  switch (code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION':
      return `unknown option ${JSON.stringify(quoted)}`;
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${JSON.stringify(quoted)}`;
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(message)) return `${flag} takes no value`;
      if (/ambiguous/.test(message)) return `${flag} needs a value (write a value that starts with "-" as ${flag}=-…)`;
      return `${flag} needs a value`;
    default:
      return message;
  }
}

/** A whole number within [min, max]; throws a UsageError naming the flag. */
export function wholeNumber(flag: string, value: string, min: number, max: number): number {
  if (!/^\d+$/.test(value)) throw new UsageError(`${flag} needs a whole number, got ${JSON.stringify(value)}`);
  const n = Number(value);
  if (n < min || n > max) throw new UsageError(`${flag} must be between ${min} and ${max}, got ${n}`);
  return n;
}

/** One of `allowed`; throws a UsageError naming the flag and the choices. */
export function oneOf<T extends string>(flag: string, value: string, allowed: readonly T[]): T {
  if (!(allowed as readonly string[]).includes(value))
    throw new UsageError(`${flag} must be one of ${allowed.join(', ')} (got ${JSON.stringify(value)})`);
  return value as T;
}

/** A string value that must not be empty (`--host=` is a mistake, not the empty host). */
export function nonEmpty(flag: string, value: string): string {
  if (value === '') throw new UsageError(`${flag} needs a value`);
  return value;
}
