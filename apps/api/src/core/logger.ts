import { isIP, isIPv4 } from 'node:net';
import { inspect } from 'node:util';
import pino from 'pino';
import { readableLine } from './log-format.ts';
import { currentRequest } from './observe/request-scope.ts';

/**
 * Levelled logger over pino (docs/operations/observability.md, "Logs"). Never pass secrets, IP addresses or
 * user-agent strings to it; in production it blanks what would still slip through (`redactSecrets`,
 * `blankAddresses`) in every line. A line written while a request is served carries its `reqId`.
 */
export type Level = 'debug' | 'info' | 'warn' | 'error' | 'silent';

/** Extra fields of a line: plain values (JSON lines keep them as fields; the readable line as `key=value`). */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export interface Logger {
  debug(msg: string, fields?: LogFields): void;
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, err?: unknown): void;
}

/** Where lines go: standard output unless a test (or an embedder) gives its own. */
export interface LogDestination {
  write(line: string): void;
}

export interface LoggerOptions {
  /** Production: secrets and addresses blanked in every line and error. */
  redact?: boolean;
  /** `json`: one JSON object per line; `readable`: `time LEVEL message key=value`, stacks below (development). */
  format?: 'json' | 'readable';
  destination?: LogDestination;
  /** Told of every error logged (the error-reporting hook: `observe/error-reports.ts`), after the line is written. */
  onError?: (err: unknown, msg: string) => void;
}

const SECRETS: [RegExp, string][] = [
  [/\bust_[A-Za-z0-9_-]+/g, 'ust_[redacted]'],
  [/\bsk_live_[A-Za-z0-9]+/g, 'sk_live_[redacted]'],
  // Stops at a backslash too: in a JSON line that begins an escape, which must stay whole.
  [/\btoken=[^&\s#"'<>\\]+/gi, 'token=[redacted]'],
];

/** API tokens (`ust_…`), server secrets (`sk_live_…`) and `token=` values (e-mail links) blanked. */
export function redactSecrets(text: string): string {
  return SECRETS.reduce((out, [pattern, blank]) => out.replace(pattern, blank), text);
}

/**
 * Runs of hex digits, dots and colons standing alone (not part of a word, a version such as `v1.2.3.4` or a
 * longer run): each is an address only if Node's own parser says so (`isIP`), so times (`12:34:56`), MAC
 * addresses and versions stay.
 */
const CANDIDATE = /(?<![\w.:])[0-9A-Fa-f.:]*[.:][0-9A-Fa-f.:]*(?![\w.:])/g;

/**
 * The machine's own loopback and unspecified addresses say nothing about anyone: they stay, so the line
 * saying where the server listens (`http://127.0.0.1:8080`, `0.0.0.0`) stays readable. `::` alone is
 * moreover far more often punctuation (`Foo :: bar`).
 */
const OWN = /^(127\.\d+\.\d+\.\d+|0\.0\.0\.0|::1?|0:0:0:0:0:0:0:[01])$/;

/** The run, or `[ip]` for the address in it (one ending a sentence, or an IPv4 address with its port). */
function blankCandidate(run: string): string {
  const blank = (address: string) => (OWN.test(address) ? address : '[ip]');
  if (isIP(run)) return blank(run);
  const dots = /\.+$/.exec(run);
  const head = dots ? run.slice(0, dots.index) : '';
  if (dots && isIP(head)) return `${blank(head)}${dots[0]}`;
  const port = /^(.+):(\d{1,5})$/.exec(run);
  if (port && isIPv4(port[1] as string)) return `${blank(port[1] as string)}:${port[2]}`;
  return run;
}

/** IPv4 and IPv6 addresses blanked as `[ip]` (a port or an IPv6 zone after them stays; loopback stays whole). */
export function blankAddresses(text: string): string {
  return text.replace(CANDIDATE, blankCandidate);
}

/** What production blanks in every line and error. */
export function redactLine(text: string): string {
  return blankAddresses(redactSecrets(text));
}

const stdout: LogDestination = { write: (line) => process.stdout.write(line) };

/** An error as the fields of a line: its type, message and stack (own properties left out: they may hold values). */
function errorFields(err: unknown): Record<string, unknown> {
  if (err === undefined) return {};
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return { err: { type: err.name, message: err.message, stack: err.stack, ...(typeof code === 'string' ? { code } : {}) } };
  }
  return { err: { message: inspect(err) } };
}

/** The logger the configuration asks for: pino writing JSON lines, or the readable line for development. */
export function createLogger(level: Level, opts: LoggerOptions = {}): Logger {
  const clean = opts.redact ? redactLine : (s: string) => s;
  const to = opts.destination ?? (opts.format === 'readable' ? stdout : undefined);
  const destination: pino.DestinationStream | undefined =
    opts.format === 'readable' ? { write: (s: string) => to?.write(readableLine(s)) } : to;
  const options: pino.LoggerOptions = {
    level,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    formatters: { level: (label) => ({ level: label }) },
    // `err` is already the fields we chose (`errorFields`), not an Error for pino's own serializer.
    serializers: { err: (e: unknown) => e },
    // The request being served, carried by AsyncLocalStorage (`observe/request-scope.ts`).
    mixin: () => {
      const id = currentRequest()?.id;
      return id ? { reqId: id } : {};
    },
    hooks: { streamWrite: clean },
  };
  const log = destination ? pino(options, destination) : pino(options);
  return {
    debug: (msg, fields) => log.debug(fields ?? {}, msg),
    info: (msg, fields) => log.info(fields ?? {}, msg),
    warn: (msg, fields) => log.warn(fields ?? {}, msg),
    error: (msg, err) => {
      log.error(errorFields(err), msg);
      opts.onError?.(err, msg);
    },
  };
}
