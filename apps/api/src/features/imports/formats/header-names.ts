// Column names as the formats compare them: without surrounding spaces or a byte order mark (String#trim
// removes U+FEFF), which check() already ignores, so read() must find the same columns.

/** A function giving each record with trimmed column names; records pass as they are when none needed it. */
export function trimmedNames(firstRecord: Record<string, string>): (record: Record<string, string>) => Record<string, string> {
  const renames = Object.keys(firstRecord).filter((name) => name.trim() !== name);
  if (renames.length === 0) return (record) => record;
  return (record) => {
    const out = { ...record };
    for (const name of renames) {
      out[name.trim()] = record[name] as string;
      delete out[name];
    }
    return out;
  };
}
