import { inspect } from 'node:util';

/**
 * Minimal levelled logger. Never pass secrets, IP addresses or user-agent strings to it; in production
 * it blanks what would still slip through (`redactSecrets`).
 */
export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';
const ORDER: Record<Level, number> = { debug: 10, info: 20, warn: 30, error: 40, silent: 100 };

export interface Logger {
  debug(msg: string): void;
  info(msg: string): void;
  warn(msg: string): void;
  error(msg: string, err?: unknown): void;
}

const SECRETS: [RegExp, string][] = [
  [/\bust_[A-Za-z0-9_-]+/g, 'ust_[redacted]'],
  [/\bsk_live_[A-Za-z0-9]+/g, 'sk_live_[redacted]'],
  [/\btoken=[^&\s#"'<>]+/gi, 'token=[redacted]'],
];

/** API tokens (`ust_…`), server secrets (`sk_live_…`) and `token=` values (e-mail links) blanked. */
export function redactSecrets(text: string): string {
  return SECRETS.reduce((out, [pattern, blank]) => out.replace(pattern, blank), text);
}

/** `redact` (production): every line and error stack passes through `redactSecrets`. */
export function createLogger(level: Level, opts: { redact?: boolean } = {}): Logger {
  const on = (l: Level) => ORDER[l] >= ORDER[level];
  const clean = opts.redact ? redactSecrets : (s: string) => s;
  const line = (l: Level, msg: string) => clean(`${new Date().toISOString()} ${l.toUpperCase()} ${msg}`);
  // Errors as their stack; anything else as the console would show it (redacted when asked).
  const detail = (err: unknown) => {
    if (err === undefined) return '';
    if (err instanceof Error) return clean(err.stack ?? String(err));
    return opts.redact ? clean(inspect(err)) : err;
  };
  return {
    debug: (m) => on('debug') && console.debug(line('debug', m)),
    info: (m) => on('info') && console.log(line('info', m)),
    warn: (m) => on('warn') && console.warn(line('warn', m)),
    error: (m, err) => on('error') && console.error(line('error', m), detail(err)),
  } as Logger;
}
