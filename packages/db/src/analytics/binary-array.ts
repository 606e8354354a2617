/**
 * One column of an insert's rows as a PostgreSQL array in binary format (`array_send`'s layout), sent as a
 * binary parameter: the element bytes live in a Buffer outside the JavaScript heap. Text array literals
 * (`{"a","b"}`) were large strings, one a column, that lived through the insert; in a sampling heap
 * profile they were most of the garbage the collect path promoted to the old generation, which is what
 * each major collection (and its pause) is paid for (docs/performance/history.md, "What the old generation was paying for").
 * Values are already cleaned (`cleanValue`).
 */
export type ElementType = 'uuid' | 'date' | 'timestamptz' | 'int8' | 'float8' | 'bool' | 'text' | 'jsonb';

/** The SQL array type a statement casts each parameter to (its element type must be the OID below). */
export const ARRAY_TYPE: Record<ElementType, string> = {
  uuid: 'uuid[]',
  date: 'date[]',
  timestamptz: 'timestamptz[]',
  int8: 'bigint[]',
  float8: 'double precision[]',
  bool: 'boolean[]',
  text: 'text[]',
  jsonb: 'jsonb[]',
};

/** Element type OIDs, checked by PostgreSQL's `array_recv` against the parameter's declared type. */
const OID: Record<ElementType, number> = {
  uuid: 2950,
  date: 1082,
  timestamptz: 1184,
  int8: 20,
  float8: 701,
  bool: 16,
  text: 25,
  jsonb: 3802,
};

/** ndim, flags, element OID, then one dimension: its length and lower bound. */
const HEADER_BYTES = 20;
const TWO_32 = 4_294_967_296;
/** 2000-01-01T00:00:00Z, PostgreSQL's epoch for dates and timestamps, in ms since 1970. */
const PG_EPOCH_MS = 946_684_800_000;
const DAY_MS = 86_400_000;

const HEX: Record<string, number> = {};
for (let i = 0; i < 16; i++) {
  HEX[i.toString(16)] = i;
  HEX[i.toString(16).toUpperCase()] = i;
}

/**
 * Buffers of earlier inserts, kept for the next ones: fresh Buffers for every column of every flush start
 * major collections often (V8 counts external memory; docs/performance/history.md, "What the old generation was paying for"),
 * where kept buffers are made once. An insert takes a set while it prepares and gives it
 * back once its statements have been sent and answered (`insertChunks`).
 */
const spareSets: Buffer[][] = [];
const SPARE_SETS_KEPT = 4;
/**
 * A set larger than this is not kept: a flush of 10,000 rows of the longest texts strangers may send makes
 * sets of ~100 MB, which should go with that flush rather than stay for good (a usual set is under 1 MB).
 */
const KEPT_SET_MAX_BYTES = 8 * 1024 * 1024;

/** A set of column buffers to write into (its buffers grow as rows need). */
export function takeColumnBuffers(): Buffer[] {
  return spareSets.pop() ?? [];
}

/** Gives a set back for a later insert, once nothing reads the arrays written into it any more. */
export function giveColumnBuffersBack(set: Buffer[]): void {
  if (spareSets.length >= SPARE_SETS_KEPT) return;
  let bytes = 0;
  for (const b of set) bytes += b?.length ?? 0;
  if (bytes <= KEPT_SET_MAX_BYTES) spareSets.push(set);
}

export class BinaryArrayWriter {
  private buf: Buffer;
  private pos = HEADER_BYTES;
  private count = 0;
  private hasNull = false;

  /** Writes into `set[slot]` (made or grown as needed). */
  constructor(
    private readonly type: ElementType,
    expectedRows: number,
    private readonly set: Buffer[],
    private readonly slot: number,
  ) {
    const want = HEADER_BYTES + expectedRows * (type === 'text' ? 24 : 20);
    const kept = set[slot];
    this.buf = kept && kept.length >= want ? kept : Buffer.allocUnsafeSlow(want);
    set[slot] = this.buf;
  }

  /** Appends one element: null, or a value of the column's type (a uuid or text string, a Date, a number, a boolean). */
  add(value: unknown): void {
    this.count++;
    if (value === null || value === undefined) {
      this.room(4);
      this.buf.writeInt32BE(-1, this.pos);
      this.pos += 4;
      this.hasNull = true;
      return;
    }
    switch (this.type) {
      case 'text': {
        const text = value as string;
        this.room(4 + text.length * 3);
        const bytes = this.buf.write(text, this.pos + 4, 'utf8');
        this.buf.writeInt32BE(bytes, this.pos);
        this.pos += 4 + bytes;
        return;
      }
      case 'jsonb': {
        // jsonb's binary form: a version byte (1), then the JSON text (of an object, or the text given).
        const json = typeof value === 'string' ? value : JSON.stringify(value);
        this.room(5 + json.length * 3);
        this.buf[this.pos + 4] = 1;
        const bytes = this.buf.write(json, this.pos + 5, 'utf8');
        this.buf.writeInt32BE(bytes + 1, this.pos);
        this.pos += 5 + bytes;
        return;
      }
      case 'uuid':
        this.room(20);
        this.buf.writeInt32BE(16, this.pos);
        this.writeUuid(value as string, this.pos + 4);
        this.pos += 20;
        return;
      case 'date':
        this.room(8);
        this.buf.writeInt32BE(4, this.pos);
        this.buf.writeInt32BE(Math.floor(((value as Date).getTime() - PG_EPOCH_MS) / DAY_MS), this.pos + 4);
        this.pos += 8;
        return;
      case 'timestamptz': {
        const ms = (value as Date).getTime() - PG_EPOCH_MS;
        // Microseconds; past ~2285 they leave the safe integers: exact through BigInt (never on today's rows).
        if (Number.isSafeInteger(ms * 1000)) this.int8(ms * 1000);
        else this.int8Big(BigInt(ms) * 1000n);
        return;
      }
      case 'int8':
        this.int8(value as number);
        return;
      case 'float8':
        this.room(12);
        this.buf.writeInt32BE(8, this.pos);
        this.buf.writeDoubleBE(value as number, this.pos + 4);
        this.pos += 12;
        return;
      case 'bool':
        this.room(5);
        this.buf.writeInt32BE(1, this.pos);
        this.buf[this.pos + 4] = value ? 1 : 0;
        this.pos += 5;
        return;
    }
  }

  /** The array's bytes: a view of the set's buffer, valid until the set is given back. */
  finish(): Buffer {
    const b = this.buf;
    b.writeInt32BE(1, 0);
    b.writeInt32BE(this.hasNull ? 1 : 0, 4);
    b.writeInt32BE(OID[this.type], 8);
    b.writeInt32BE(this.count, 12);
    b.writeInt32BE(1, 16);
    return b.subarray(0, this.pos);
  }

  /** A 64-bit integer (two's complement, big-endian) from a safe integer: ids, counts and microseconds. */
  private int8(n: number) {
    this.room(12);
    this.buf.writeInt32BE(8, this.pos);
    const high = Math.floor(n / TWO_32);
    this.buf.writeInt32BE(high, this.pos + 4);
    this.buf.writeUInt32BE(n - high * TWO_32, this.pos + 8);
    this.pos += 12;
  }

  private int8Big(n: bigint) {
    this.room(12);
    this.buf.writeInt32BE(8, this.pos);
    this.buf.writeBigInt64BE(n, this.pos + 4);
    this.pos += 12;
  }

  /** The 16 bytes of a uuid in its text form (`uuidValue` made sure of it). */
  private writeUuid(uuid: string, at: number) {
    let out = at;
    for (let i = 0; i < uuid.length; i++) {
      if (uuid[i] === '-') continue;
      this.buf[out++] = ((HEX[uuid[i] as string] as number) << 4) | (HEX[uuid[++i] as string] as number);
    }
  }

  /** Makes room for `bytes` more, doubling the buffer when it is short. */
  private room(bytes: number) {
    if (this.pos + bytes <= this.buf.length) return;
    const bigger = Buffer.allocUnsafeSlow(Math.max(this.buf.length * 2, this.pos + bytes));
    this.buf.copy(bigger, 0, 0, this.pos);
    this.buf = bigger;
    this.set[this.slot] = bigger;
  }
}
