import { readFileSync } from 'node:fs';

/**
 * The settings of a file in postgresql.conf's syntax (`name = value` or `name value`, one a line, `#` starts a
 * comment, values optionally in single quotes), in file order. Throws on a line it cannot read, naming it.
 */
export function parsePostgresSettings(text: string, source = 'settings'): Record<string, string> {
  const settings: Record<string, string> = {};
  text.split('\n').forEach((raw, i) => {
    const line = raw.trim();
    if (!line || line.startsWith('#')) return;
    const m = /^([a-z_][a-z0-9_.]*)\s*(?:=\s*|\s+)('(?:[^']|'')*'|[^\s#']+)\s*(?:#.*)?$/i.exec(line);
    if (!m) throw new Error(`${source}, line ${i + 1}: not a PostgreSQL setting (name = value): ${raw.trim()}`);
    const value = m[2] as string;
    settings[(m[1] as string).toLowerCase()] = value.startsWith("'") ? value.slice(1, -1).replaceAll("''", "'") : value;
  });
  return settings;
}

/** `parsePostgresSettings` of a file. */
export function readPostgresSettings(file: string): Record<string, string> {
  return parsePostgresSettings(readFileSync(file, 'utf8'), file);
}
