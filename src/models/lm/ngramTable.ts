/**
 * Counts keyed by an n-gram packed in one number (word ids of {@link ID_BITS} bits each, three of them
 * below 2^53): an open-addressing hash table over typed arrays (keys as float64, counts as uint32),
 * so that counting allocates nothing per n-gram and costs 12 bytes a slot outside the JavaScript heap
 * (a `Map` keyed by such numbers boxes every key and stops at 2^24 entries).
 */

const ID_BITS = 17;
export const B = 2 ** ID_BITS;
const EMPTY = -1;
const TWO32 = 2 ** 32;

/** A 32-bit hash of a packed key (a non-negative integer below 2^53). */
function hashOf(key: number): number {
  const lo = key >>> 0;
  const hi = (key / TWO32) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2f), 0x9e3779b1);
  h ^= h >>> 15;
  h = Math.imul(h, 0x85ebca77);
  return (h ^ (h >>> 13)) >>> 0;
}

export class NgramTable {
  keys: Float64Array;
  counts: Uint32Array;
  size = 0;
  private mask: number;

  constructor(capacity = 1 << 16) {
    let cap = 1 << 10;
    while (cap < capacity) cap *= 2;
    this.keys = new Float64Array(cap).fill(EMPTY);
    this.counts = new Uint32Array(cap);
    this.mask = cap - 1;
  }

  get capacity(): number {
    return this.keys.length;
  }

  add(key: number, by = 1): void {
    const keys = this.keys;
    let i = hashOf(key) & this.mask;
    for (;;) {
      const k = keys[i]!;
      if (k === key) {
        this.counts[i]! += by;
        return;
      }
      if (k === EMPTY) {
        keys[i] = key;
        this.counts[i] = by;
        if (++this.size * 10 > keys.length * 7) this.grow();
        return;
      }
      i = (i + 1) & this.mask;
    }
  }

  /** The slot of `key`, or −1. */
  slotOf(key: number): number {
    const keys = this.keys;
    let i = hashOf(key) & this.mask;
    for (;;) {
      const k = keys[i]!;
      if (k === key) return i;
      if (k === EMPTY) return -1;
      i = (i + 1) & this.mask;
    }
  }

  get(key: number): number {
    const s = this.slotOf(key);
    return s < 0 ? 0 : this.counts[s]!;
  }

  /** Every key, in ascending order (ids in order: the ARPA's order and the estimate's). */
  sortedKeys(): Float64Array {
    const out = new Float64Array(this.size);
    let n = 0;
    for (const k of this.keys) if (k !== EMPTY) out[n++] = k;
    return out.sort();
  }

  private grow(): void {
    const { keys, counts } = this;
    this.keys = new Float64Array(keys.length * 2).fill(EMPTY);
    this.counts = new Uint32Array(keys.length * 2);
    this.mask = this.keys.length - 1;
    this.size = 0;
    for (let i = 0; i < keys.length; i++) if (keys[i] !== EMPTY) this.add(keys[i]!, counts[i]!);
  }
}
