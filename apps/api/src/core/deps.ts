import type { Orm } from '@us/db';
import type { Env, Urls } from './env.ts';
import type { HotStore } from './hot/store.ts';
import type { Logger } from './logger.ts';
import type { Mailer } from './mail/mailer.ts';
import type { ErrorReports } from './observe/error-reports.ts';
import { Cipher } from './security/cipher.ts';

/**
 * Everything long-lived a request may use. Built once at start-up by `makeDeps` (make-deps.ts), for the
 * server (boot.ts) and the test harness alike.
 * The floors above add their own parts to this interface by declaration merging, so this floor names no
 * feature: `ingest` (analytics/ingest/start.ts) and `billing` (features/billing/provider.ts).
 */
export interface Deps {
  env: Env;
  urls: Urls;
  orm: Orm;
  /**
   * A pool of its own for stats questions, with PostgreSQL's statement_timeout: a heavy question waits
   * for or runs on these connections only, never starving sign-in, collect or the flusher.
   */
  statsOrm: Orm;
  hot: HotStore;
  mailer: Mailer;
  logger: Logger;
  /** Errors on their way to the error-reporting hook (ERROR_HOOK), with their request's id and route. */
  errors: ErrorReports;
  ciphers: {
    totp: Cipher;
    idempotency: Cipher;
    passKey: Cipher;
    /** Sites' internal keys (features/internal-link/internal-key.ts). */
    internalKey: Cipher;
    downloads: Cipher;
    search: Cipher;
    share: Cipher;
    reports: Cipher;
    /** Alert webhooks' signing secrets, and alert unsubscribe links (features/alerts/). */
    alerts: Cipher;
    /** The keyed hashes of the mail suppression list (core/mail/suppression.ts). */
    mail: Cipher;
  };
  /** Throttles slow callers down with this; tests replace it to observe the delay. */
  sleep: (ms: number) => Promise<void>;
  /** Set when the process is shutting down: new requests are turned away (503) while in-flight ones finish. */
  lifecycle: { draining: boolean };
}

export function makeCiphers(appSecret: string): Deps['ciphers'] {
  return {
    totp: new Cipher(appSecret, 'totp'),
    idempotency: new Cipher(appSecret, 'idempotency'),
    passKey: new Cipher(appSecret, 'pass-key'),
    internalKey: new Cipher(appSecret, 'internal-key'),
    downloads: new Cipher(appSecret, 'downloads'),
    search: new Cipher(appSecret, 'search'),
    share: new Cipher(appSecret, 'share'),
    reports: new Cipher(appSecret, 'reports'),
    alerts: new Cipher(appSecret, 'alerts'),
    mail: new Cipher(appSecret, 'mail'),
  };
}

export const realSleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
