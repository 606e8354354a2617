import { z } from 'zod';

/**
 * Every setting the server reads, parsed once at start-up. Nothing else reads process.env.
 * See the configuration table: docs/configuration.md, "The server's settings".
 */
const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('./.data'),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional(),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\//, 'must be a redis:// URL')
    .optional(),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional(),
  MAIL_FROM: z.string().default('Unseen Stats <no-reply@localhost>'),
  APP_URL: z.url().optional(),
  BASE_URL: z.url().optional(),
  COLLECT_URL: z.url().optional(),
  CHALLENGE_URL: z.url().optional(),
  APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional(),
  PWNED_PASSWORDS_URL: z.url().optional(),
  TRUST_PROXY: z.stringbool().default(false),
  /**
   * Proxies in front of the server that append to X-Forwarded-For. The client address is the entry that
   * many places from the right: what the outermost trusted proxy saw. Entries further left are the
   * client's own claims.
   */
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1),
  /** Resolvers for hostname and crawler verification, `ip` or `ip:port`, comma-separated; unset → the system's. */
  DNS_SERVERS: z
    .string()
    .regex(/^[0-9a-f.:[\]]+(\s*,\s*[0-9a-f.:[\]]+)*$/i, 'must be addresses such as 1.1.1.1 or 127.0.0.1:5353, comma-separated')
    .optional(),
  /** Edge platform (Cloudflare-for-SaaS-style custom hostnames API) for proxy-mode hostnames. */
  EDGE_API_URL: z.url().default('https://api.cloudflare.com/client/v4'),
  EDGE_API_TOKEN: z.string().optional(),
  EDGE_ZONE_ID: z.string().optional(),
  /** Where proxy-mode hostnames point their CNAME; unset → `proxy.<BASE_URL host>`. */
  PROXY_CNAME_TARGET: z.string().optional(),
  MCP_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  /** Collect budgets per minute (docs/operations/limits.md): past them reports are dropped and counted. */
  COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).default(600),
  COLLECT_REPORTS_PER_SITE_PER_MINUTE: z.coerce.number().int().min(1).default(60_000),
  COLLECT_BATCHES_PER_SITE_PER_MINUTE: z.coerce.number().int().min(1).default(6_000),
  /**
   * Behaviour memory (docs/operations/limits.md): visitors remembered per site and day (the busiest stay),
   * and visitors the in-process hot store remembers over all sites (a shared store holds sites × per site).
   */
  BEHAVIOUR_VISITORS_PER_SITE: z.coerce.number().int().min(10).default(10_000),
  BEHAVIOUR_VISITORS_PER_NODE: z.coerce.number().int().min(100).default(200_000),
  /** Stats questions: time a statement may run, connections of their own pool, questions at once per workspace. */
  STATS_TIMEOUT_MS: z.coerce.number().int().min(100).default(15_000),
  STATS_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10),
  STATS_CONCURRENT_PER_WORKSPACE: z.coerce.number().int().min(1).default(8),
  /** Rows the write buffer holds at most (in-process: all tables; Redis: per table) before answering 503. */
  INGEST_BUFFER_MAX_ROWS: z.coerce.number().int().min(1000).default(200_000),
  /** Search providers' APIs (docs/product/search.md, "Search connections"); tests point them at local stand-ins. */
  SEARCH_GOOGLE_API_URL: z.url().default('https://searchconsole.googleapis.com'),
  SEARCH_BING_API_URL: z.url().default('https://ssl.bing.com/webmaster/api.svc/json'),
  /** This service's own Google service-account key file (JSON text) for delegated mode; unset → not offered. */
  SEARCH_SERVICE_ACCOUNT_KEY: z.string().optional(),
  /** Export copies in S3-compatible storage (docs/product/export.md, "Export"); unset → DATA_DIR/exports on each node. */
  EXPORT_S3_BUCKET: z.string().min(3).optional(),
  EXPORT_S3_ENDPOINT: z.url().optional(),
  EXPORT_S3_REGION: z.string().default('us-east-1'),
  EXPORT_S3_PREFIX: z.string().default('exports/'),
  EXPORT_S3_ACCESS_KEY_ID: z.string().optional(),
  EXPORT_S3_SECRET_ACCESS_KEY: z.string().optional(),
  /** Payment provider (docs/product/billing.md): both set → billing works; neither → "not configured", everyone on Free. */
  STRIPE_SECRET_KEY: z.string().min(8).optional(),
  STRIPE_WEBHOOK_SECRET: z.string().min(8).optional(),
  /** Stripe's API address, scheme://host[:port] only (the client adds /v1/…); tests point it at a stand-in. */
  STRIPE_API_URL: z
    .url()
    .refine((u) => new URL(u).pathname === '/', 'must be scheme://host[:port] with no path')
    .default('https://api.stripe.com'),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info'),
  /** Log lines as JSON (one object per line) or readable text; unset → JSON in production, readable otherwise. */
  LOG_FORMAT: z.enum(['json', 'readable']).optional(),
  /** Serve Prometheus /metrics on this port of its own (no token unless METRICS_TOKEN is set); unset → not. */
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional(),
  /** Serve /metrics on the main port to `Authorization: Bearer <this>`; unset (and no METRICS_PORT) → 404. */
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** Error-reporting hook: a module path or package name exporting `report(error, context)`, loaded at start-up. */
  ERROR_HOOK: z.string().optional(),
});

export type Env = z.infer<typeof EnvSchema>;

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const relevant = Object.fromEntries(
    Object.entries(source).filter(([k, v]) => k in EnvSchema.shape && v !== undefined && v !== ''),
  );
  const parsed = EnvSchema.safeParse(relevant);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new Error(`Invalid configuration:\n${lines.join('\n')}`);
  }
  if (!parsed.data.STRIPE_SECRET_KEY !== !parsed.data.STRIPE_WEBHOOK_SECRET) {
    throw new Error(
      'Invalid configuration:\n  STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET: set both (billing works) or neither (billing not configured)',
    );
  }
  return parsed.data;
}

/** Public addresses, derived from the listening address when not configured. */
export interface Urls {
  app: string;
  base: string;
  collect: string;
  challenge: string;
}

export function deriveUrls(env: Env, listening: { host: string; port: number }): Urls {
  const host = listening.host === '0.0.0.0' || listening.host === '::' ? 'localhost' : listening.host;
  const origin = `http://${host.includes(':') ? `[${host}]` : host}:${listening.port}`;
  const base = (env.BASE_URL ?? origin).replace(/\/$/, '');
  return {
    base,
    app: (env.APP_URL ?? base).replace(/\/$/, ''),
    collect: (env.COLLECT_URL ?? `${base}/collect`).replace(/\/$/, ''),
    challenge: (env.CHALLENGE_URL ?? `${base}/challenge`).replace(/\/$/, ''),
  };
}
