/**
 * Checks of a constructor's options, made where the object is constructed (as `ws` does), so that a
 * program that builds the service without its command line gets the same refusal: a `RangeError` or
 * `TypeError` naming the option and the value.
 */

/** A whole number within [min, max]; throws a RangeError naming the option. */
export function checkWhole(name: string, value: unknown, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new TypeError(`option ${name} must be a whole number, got ${JSON.stringify(value)}`);
  if (value < min || value > max) throw new RangeError(`option ${name} must be between ${min} and ${max}, got ${value}`);
  return value;
}

/** Every field of `values` a whole number within [min, max] (a table of durations in ms, say). */
export function checkAllWhole(name: string, values: object, min: number, max?: number): void {
  for (const [k, v] of Object.entries(values)) checkWhole(`${name}.${k}`, v, min, max);
}
