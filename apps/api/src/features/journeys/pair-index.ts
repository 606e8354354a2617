// Dense numbers for pairs of 32-bit integers (a path and its next label, a neighbour step and a label):
// open addressing over one typed array holding (x, y, number) side by side, so a lookup touches one
// cache line. With ~10^6 groups a Map keyed by `x * L + y` made heap numbers of most keys (beyond 2^31)
// and spent more time hashing them than the journeys answer spent elsewhere.
const EMPTY = -1;
const STRIDE = 3;

export class PairIndex {
  size = 0;
  private table: Int32Array;
  private mask: number;
  /** 32 minus the bits of the slot count: slots are taken from the hash's high bits. */
  private shift: number;

  constructor(expected = 512) {
    let slots = 1024;
    while (slots < expected * 2) slots *= 2;
    this.table = new Int32Array(slots * STRIDE).fill(EMPTY);
    this.mask = slots - 1;
    this.shift = Math.clz32(slots) + 1;
  }

  /** The pair's number: 0, 1, 2… in the order pairs are first seen. */
  id(x: number, y: number): number {
    const t = this.table;
    let i = this.slot(x, y);
    for (;;) {
      const id = t[i * STRIDE + 2] as number;
      if (id === EMPTY) break;
      if (t[i * STRIDE] === x && t[i * STRIDE + 1] === y) return id;
      i = (i + 1) & this.mask;
    }
    t[i * STRIDE] = x;
    t[i * STRIDE + 1] = y;
    t[i * STRIDE + 2] = this.size;
    if (++this.size * 2 > this.mask) this.grow();
    return this.size - 1;
  }

  private slot(x: number, y: number): number {
    const h = Math.imul(x, 0x85ebca77) ^ y;
    return Math.imul(h ^ (h >>> 15), 0x9e3779b1) >>> this.shift;
  }

  private grow(): void {
    const old = this.table;
    const slots = (this.mask + 1) * 2;
    this.table = new Int32Array(slots * STRIDE).fill(EMPTY);
    this.mask = slots - 1;
    this.shift = Math.clz32(slots) + 1;
    for (let j = 0; j < old.length; j += STRIDE) {
      if (old[j + 2] === EMPTY) continue;
      let i = this.slot(old[j] as number, old[j + 1] as number);
      while (this.table[i * STRIDE + 2] !== EMPTY) i = (i + 1) & this.mask;
      this.table.set(old.subarray(j, j + STRIDE), i * STRIDE);
    }
  }
}
