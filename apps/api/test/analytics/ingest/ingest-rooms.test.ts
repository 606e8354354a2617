import { describe, expect, it } from 'vitest';
import type { IngestBuffer } from '../../../src/analytics/ingest/buffer.ts';
import { openRooms } from '../../../src/analytics/ingest/rooms.ts';

/** A buffer that always has room; what it queues does not matter here. */
const buffer = { holdRoom: () => ({ enqueue() {}, release() {} }) } as unknown as IngestBuffer;
const settled = async (p: Promise<void>) => {
  let done = false;
  void p.then(() => {
    done = true;
  });
  for (let i = 0; i < 5; i++) await Promise.resolve();
  return done;
};

describe('openRooms', () => {
  it('answers at once when no room is open', async () => {
    expect(await settled(openRooms(buffer, () => {}).released())).toBe(true);
  });

  it('waits for the rooms open when asked, across asks, and not for rooms opened later', async () => {
    const rooms = openRooms(buffer, () => {});
    const a = rooms.hold(1);
    const firstAsk = rooms.released();
    const b = rooms.hold(1); // after the first ask: not its business
    const secondAsk = rooms.released(); // waits for a (still open) and b
    const c = rooms.hold(1);
    expect(await settled(firstAsk)).toBe(false);
    b?.release();
    b?.release(); // a second release counts once
    // a, open before both asks, still holds both up.
    expect(await settled(firstAsk)).toBe(false);
    expect(await settled(secondAsk)).toBe(false);
    a?.release();
    expect(await settled(firstAsk)).toBe(true);
    expect(await settled(secondAsk)).toBe(true);
    // c is still open: a third ask waits for it alone.
    const thirdAsk = rooms.released();
    expect(await settled(thirdAsk)).toBe(false);
    c?.release();
    expect(await settled(thirdAsk)).toBe(true);
  });
});
