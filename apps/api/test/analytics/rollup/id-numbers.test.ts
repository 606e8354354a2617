// The leave reports' pageview ids numbered for the rollup (id-numbers.ts): exact for every string, whether
// it packs into words (the collect door's alphabet, up to 35 characters) or goes through the Map.
import { describe, expect, it } from 'vitest';
import { forEachCopyRow } from '../../../src/analytics/rollup/copy-rows.ts';
import { IdNumbers, packedHash } from '../../../src/analytics/rollup/id-numbers.ts';
import { LeaveSums } from '../../../src/analytics/rollup/rollup-leaves.ts';

describe('pageview ids numbered for the leave sums', () => {
  it('tell apart ids that differ in case, length, one character or a trailing character past the packed length', () => {
    const ids = new IdNumbers();
    const names = [
      'b1a0bfe52f009420',
      'B1A0BFE52F009420',
      'b1a0bfe52f00942',
      'b1a0bfe52f009421',
      'A',
      'AA',
      '-',
      '_',
      'x'.repeat(35),
      'x'.repeat(36),
      'x'.repeat(37),
      'ü-umlaut',
      'tab\there',
      '',
      'a b',
    ];
    const numbers = names.map((n) => ids.add(n));
    expect(new Set(numbers).size).toBe(names.length);
    expect(names.map((n) => ids.add(n))).toEqual(numbers);
    expect(names.map((n) => ids.find(n))).toEqual(numbers);
    expect(ids.find('b1a0bfe52f00942a')).toBe(-1);
    expect(ids.find('x'.repeat(38))).toBe(-1);
    expect(ids.size).toBe(names.length);
  });

  it('keep every id through the table growing, mixed with ids the Map numbers', () => {
    const ids = new IdNumbers();
    const idOf = (i: number) => (i % 7 === 0 ? `é${i}` : i.toString(36).padStart(8, '0'));
    for (let i = 0; i < 200_000; i++) expect(ids.add(idOf(i))).toBe(i);
    for (let i = 0; i < 200_000; i += 997) expect(ids.find(idOf(i))).toBe(i);
    expect(ids.find('zzzzzzzzz')).toBe(-1);
  });
});

describe('pageview ids a stranger chose to collide', () => {
  it('crowd one run of slots only under a hash seed they know; a table seeds its own at random', () => {
    // Ids whose hash under a known seed picks the same slot of a new table (4,096 slots).
    const seed = 12345;
    const slot = (id: string) => (packedHash(id, seed) as number) & 0xfff;
    const target = slot('first-pageview');
    const colliding: string[] = [];
    for (let i = 0; colliding.length < 150; i++) {
      const id = `atk-${i.toString(36).padStart(6, '0')}`;
      if (slot(id) === target) colliding.push(id);
    }
    const known = new IdNumbers(seed);
    expect(colliding.map((id) => known.add(id))).toEqual(colliding.map((_, i) => i));
    expect(colliding.map((id) => known.find(id))).toEqual(colliding.map((_, i) => i));
    expect(known.probes).toBeGreaterThan(150 * 149);

    const own = new IdNumbers();
    expect(colliding.map((id) => own.add(id))).toEqual(colliding.map((_, i) => i));
    expect(colliding.map((id) => own.find(id))).toEqual(colliding.map((_, i) => i));
    expect(own.probes).toBeLessThan(300);
  });
});

describe('leave sums by pageview id', () => {
  const stream = async function* (text: string) {
    yield Buffer.from(text);
  };

  it('keep the deepest scroll and the summed visible time of each id, and count visible time once an id', async () => {
    const leaves = new LeaveSums();
    await forEachCopyRow(
      stream('p1\t40\t1000\np2\t10\t5\np1\t80\t2500\nP1\t5\t7\nlong\\tid\t1\t9007199254740991\nlong\\tid\t2\t10\n'),
      (f) => leaves.add(f[0] as string, Number(f[1]), Number(f[2])),
    );
    const p1 = leaves.of('p1');
    expect([leaves.scrollOf(p1), leaves.msOf(p1)]).toEqual([80, 3500]);
    expect(leaves.msOf(leaves.of('P1'))).toBe(7);
    const escaped = leaves.of('long\tid');
    expect([leaves.scrollOf(escaped), leaves.msOf(escaped)]).toEqual([2, 9007199254741001n]);
    expect(leaves.of('p3')).toBe(-1);
    leaves.countVisible(p1);
    leaves.countVisible(p1);
    leaves.countVisible(leaves.of('p2'));
    expect(leaves.visibleMs).toBe(3505);
    leaves.countVisible(escaped);
    expect(leaves.visibleMs).toBe(9007199254744506n);
  });
});
