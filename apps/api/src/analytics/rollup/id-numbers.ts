// Numbers for the pageview ids of a rollup's leave reports, exact for any string. The collect door
// takes ids of 8–32 characters of [A-Za-z0-9_-]; an id of that alphabet and at most 35 characters is
// packed six bits a character into eight 32-bit words of one typed array and found by open addressing
// in another, so a lookup touches two or three cache lines. A Map of a million such strings touched
// about six and was most of a whole-day rollup's leave work (docs/performance/history.md, "Leave
// reports by packed id"). Any other id (longer, other characters) is numbered through a Map.
// Strangers choose these ids: the hash is seeded at random per table, as V8 seeds its own, so ids
// cannot be made to crowd one run of slots.
import { randomBytes } from 'node:crypto';

/** Words an id takes: its length, then five characters a word. */
const STRIDE = 8;
const MAX_PACKED = (STRIDE - 1) * 5;

/** Each character of the packable alphabet's six bits; -1 for any other. */
const SIX = new Int8Array(128).fill(-1);
for (const [i, c] of [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-'].entries()) {
  SIX[c.charCodeAt(0)] = i;
}

/** `id` packed into `w` (its eight words); false when it does not pack. */
function pack(id: string, w: Int32Array): boolean {
  const n = id.length;
  if (n === 0 || n > MAX_PACKED) return false;
  w.fill(0);
  w[0] = n;
  let word = 1;
  let shift = 0;
  for (let i = 0; i < n; i++) {
    const c = id.charCodeAt(i);
    const v = c < 128 ? (SIX[c] as number) : -1;
    if (v < 0) return false;
    w[word] = (w[word] as number) | (v << shift);
    shift += 6;
    if (shift === 30) {
      shift = 0;
      word++;
    }
  }
  return true;
}

function hashOf(seed: number, w: Int32Array, at: number): number {
  let h = seed;
  for (let k = 0; k < STRIDE; k++) {
    h = Math.imul(h ^ (w[at + k] as number), 0x9e3779b1);
    h ^= h >>> 15;
  }
  // MurmurHash3's finaliser: every bit of the words reaches the low bits a slot is chosen by.
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** The hash `id` has under `seed` when it packs (tests build colliding ids with it), else undefined. */
export function packedHash(id: string, seed: number): number | undefined {
  const w = new Int32Array(STRIDE);
  return pack(id, w) ? hashOf(seed, w, 0) : undefined;
}

/** Numbers distinct id strings 0, 1, 2… in the order first added. */
export class IdNumbers {
  size = 0;
  /** Slots stepped over in all lookups so far (a table flooded by colliding ids shows here). */
  probes = 0;
  private words = new Int32Array(1024 * STRIDE);
  /**
   * Open addressing over the packed ids, two numbers a slot: the id's number + 1 (0: empty) and its hash, so a
   * lookup passes other ids without reading their words, and growing reads the slots in order.
   */
  private slots = new Int32Array(2 << 12);
  private readonly others = new Map<string, number>();
  private readonly scratch = new Int32Array(STRIDE);

  /** `seed`: the hash's, random unless a test fixes it. */
  constructor(private readonly seed = randomBytes(4).readInt32LE(0)) {}

  /** The number of `id`, or -1 when it was never added. */
  find(id: string): number {
    const w = this.scratch;
    if (!pack(id, w)) return this.others.get(id) ?? -1;
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const h = hashOf(this.seed, w, 0);
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const n = slots[2 * i] as number;
      if (n === 0) return -1;
      this.probes++;
      if (slots[2 * i + 1] === h && this.same(n - 1, w)) return n - 1;
    }
  }

  /** The number of `id`, a new one when it was not added before. */
  add(id: string): number {
    const w = this.scratch;
    if (!pack(id, w)) {
      let n = this.others.get(id);
      if (n === undefined) {
        n = this.next();
        this.others.set(id, n);
      }
      return n;
    }
    const slots = this.slots;
    const mask = (slots.length >> 1) - 1;
    const h = hashOf(this.seed, w, 0);
    let i = h & mask;
    for (; ; i = (i + 1) & mask) {
      const n = slots[2 * i] as number;
      if (n === 0) break;
      this.probes++;
      if (slots[2 * i + 1] === h && this.same(n - 1, w)) return n - 1;
    }
    const n = this.next();
    this.words.set(w, n * STRIDE);
    slots[2 * i] = n + 1;
    slots[2 * i + 1] = h;
    if (this.size * 2 > mask) this.rehash();
    return n;
  }

  /** A new number, its words zero until set (an id numbered through the Map keeps them zero). */
  private next(): number {
    const n = this.size++;
    if (this.size * STRIDE > this.words.length) this.words = grown(this.words);
    return n;
  }

  private same(n: number, w: Int32Array): boolean {
    const k = this.words;
    const b = n * STRIDE;
    return (
      k[b] === w[0] &&
      k[b + 1] === w[1] &&
      k[b + 2] === w[2] &&
      k[b + 3] === w[3] &&
      k[b + 4] === w[4] &&
      k[b + 5] === w[5] &&
      k[b + 6] === w[6] &&
      k[b + 7] === w[7]
    );
  }

  /** Twice the slots, every packed id placed again by its kept hash. */
  private rehash() {
    const old = this.slots;
    const slots = new Int32Array(old.length * 2);
    const mask = (slots.length >> 1) - 1;
    for (let k = 0; k < old.length; k += 2) {
      const n = old[k] as number;
      if (n === 0) continue;
      const h = old[k + 1] as number;
      let i = h & mask;
      while (slots[2 * i] !== 0) i = (i + 1) & mask;
      slots[2 * i] = n;
      slots[2 * i + 1] = h;
    }
    this.slots = slots;
  }
}

/** A typed array twice as long, with the same start. */
export function grown<T extends Int32Array | Float64Array>(a: T): T {
  const b = new (a.constructor as new (n: number) => T)(a.length * 2);
  b.set(a);
  return b;
}
