import { randomFillSync } from 'node:crypto';

/**
 * Random bytes for 512 ids, filled at once: a `randomBytes(16)` per id showed in the collect path's profile
 * (docs/performance/history.md, "The three faces and ingest").
 */
const POOL_IDS = 512;
const pool = Buffer.alloc(16 * POOL_IDS);
let used = POOL_IDS;

/** The next 16 unused random bytes (a view into the pool: each id overwrites its own part). */
function randomSixteen(): Buffer {
  if (used === POOL_IDS) {
    randomFillSync(pool);
    used = 0;
  }
  used += 1;
  return pool.subarray(16 * (used - 1), 16 * used);
}

let lastMs = 0;
let counter = 0;

/**
 * A UUID version 7 (RFC 9562): 48 bits of Unix milliseconds, a 12-bit counter within the millisecond,
 * then 62 random bits. Raw rows get these ids because their primary key is (site_id, day, id): ids that
 * grow with time land at the right edge of each site's index instead of on random pages, which made
 * inserts faster (random v4 ids had to read index pages back in: docs/performance/history.md, "The first changes (issue 13)").
 */
export function timeOrderedUuid(now = Date.now()): string {
  // Never going back within the process: a clock step back, or a 4,097th id in one millisecond, borrows
  // the next millisecond (RFC 9562 §6.2, method 1), so ids made here always sort in the order made.
  if (now > lastMs) {
    lastMs = now;
    counter = 0;
  } else if (++counter > 0xfff) {
    lastMs += 1;
    counter = 0;
  }
  const b = randomSixteen();
  b.writeUIntBE(lastMs, 0, 6);
  b[6] = 0x70 | (counter >> 8);
  b[7] = counter & 0xff;
  b[8] = 0x80 | ((b[8] as number) & 0x3f);
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}
