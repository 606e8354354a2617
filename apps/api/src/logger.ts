/** Minimal levelled logger. Never pass secrets, IP addresses or user-agent strings to it. */
export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string, err?: unknown): void;
}

export function createLogger(level: Level): Logger {
  const on = (l: Level) => ORDER[l] >= ORDER[level];
  const line = (l: Level, msg: string) => `${new Date().toISOString()} ${l.toUpperCase()} ${msg}`;
  return {
    debug: (m) => on('debug') && console.debug(line('debug', m)),
    info: (m) => on('info') && console.log(line('info', m)),
    warn: (m) => on('warn') && console.warn(line('warn', m)),
    error: (m, err) => on('error') && console.error(line('error', m), err instanceof Error ? err.stack : (err ?? '')),
  } as Logger;
}
