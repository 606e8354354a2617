import type { LogDestination } from '../../src/core/logger.ts';

/** One JSON log line as the logger writes it. */
export interface LogLine {
  level: string;
  msg: string;
  reqId?: string;
  [field: string]: unknown;
}

/**
 * A log destination keeping every line a logger writes, for a test to read (`startTestServer({ logs })`,
 * `createLogger(level, { destination })`). `text()` is everything as written; `lines()` parses JSON lines.
 */
export function captureLogs() {
  const written: string[] = [];
  const destination: LogDestination = { write: (line) => void written.push(line) };
  return {
    destination,
    text: () => written.join(''),
    lines: (): LogLine[] =>
      written
        .join('')
        .split('\n')
        .filter((l) => l.startsWith('{'))
        .map((l) => JSON.parse(l) as LogLine),
  };
}
