// Journey groups stored as one span (day-store/span.ts): names, flag strings and exposures in a JSON header, the
// three number columns side by side in one buffer, each in the narrowest unsigned width that holds its largest
// value plus one (0 is an empty slot). A month of page zoom on a large site is much smaller this way than as
// 32-bit numbers (most label numbers fit a byte; docs/performance/history.md,
// "Figures once kept in code comments"), and the span is read on every ask.
import { type Exposure, GroupColumns, WIDTH } from './groups.ts';

type Width = 1 | 2 | 4;

export interface PackedHeader {
  names: string[];
  flagNames: string[];
  count: number;
  exposures: Exposure[];
  /** Bytes per value of steps, flags and sessions. */
  widths: [Width, Width, Width];
}

const ARRAYS = { 1: Uint8Array, 2: Uint16Array, 4: Uint32Array } as const;

function widthFor(values: Int32Array): Width {
  let max = 0;
  for (let i = 0; i < values.length; i++) if ((values[i] as number) > max) max = values[i] as number;
  return max + 1 < 0xff ? 1 : max + 1 < 0xffff ? 2 : 4;
}

function narrow(values: Int32Array, width: Width): Uint8Array {
  const out = new ARRAYS[width](values.length);
  for (let i = 0; i < values.length; i++) out[i] = (values[i] as number) + 1;
  return new Uint8Array(out.buffer);
}

function widen(bytes: Uint8Array, width: Width): Int32Array<ArrayBuffer> {
  // A copy first (a Buffer's slice is no copy): the driver's buffer need not be aligned for wider reads.
  const values = new ARRAYS[width](new Uint8Array(bytes).buffer);
  const out = new Int32Array(values.length);
  for (let i = 0; i < values.length; i++) out[i] = (values[i] as number) - 1;
  return out;
}

/** Unanchored columns as a header and one buffer (this machine's byte order; read back where written). */
export function packGroups(cols: GroupColumns): { header: PackedHeader; bytes: Buffer } {
  const n = cols.count;
  const columns = [cols.steps.subarray(0, n * WIDTH), cols.flags.subarray(0, n), cols.sessions.subarray(0, n)];
  const widths = columns.map(widthFor) as PackedHeader['widths'];
  return {
    header: { names: [...cols.names], flagNames: [...cols.flagNames], count: n, exposures: [...cols.exposures.values()], widths },
    bytes: Buffer.concat(columns.map((c, i) => narrow(c, widths[i] as Width))),
  };
}

export function unpackGroups(header: PackedHeader, bytes: Uint8Array): GroupColumns {
  const n = header.count;
  const [sw, fw, cw] = header.widths;
  const ends = [n * WIDTH * sw, n * WIDTH * sw + n * fw, n * WIDTH * sw + n * fw + n * cw];
  if (bytes.byteLength !== ends[2]) throw new Error(`packed journey groups: ${bytes.byteLength} bytes for ${n} groups`);
  return GroupColumns.of({
    names: header.names,
    flagNames: header.flagNames,
    exposures: header.exposures,
    steps: widen(bytes.subarray(0, ends[0]), sw),
    flags: widen(bytes.subarray(ends[0], ends[1]), fw),
    sessions: widen(bytes.subarray(ends[1], ends[2]), cw),
  });
}
