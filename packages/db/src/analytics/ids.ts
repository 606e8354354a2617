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
  return uuidText(b);
}

const HEX = Buffer.from('0123456789abcdef', 'latin1');
const text = Buffer.alloc(36);

/**
 * The 16 bytes as a UUID's text in one flat string: hex slices joined by a template make a rope of about a
 * dozen strings, several times the flat one's size, and a row's id lives until its flush, often long enough to
 * be promoted to the old generation (docs/performance/history.md, "What a buffered row keeps").
 */
export function uuidText(b: Buffer): string {
  let o = 0;
  for (let i = 0; i < 16; i++) {
    if (i === 4 || i === 6 || i === 8 || i === 10) text[o++] = 0x2d; // '-'
    const x = b[i] as number;
    text[o++] = HEX[x >> 4] as number;
    text[o++] = HEX[x & 15] as number;
  }
  return text.toString('latin1', 0, 36);
}
