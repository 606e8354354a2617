import { Resolver } from 'node:dns';
import { existsSync, readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import path from 'node:path';
import { parseEnv as parseEnvText } from 'node:util';
import { z } from 'zod';

/**
 * Every setting the server reads, parsed once at start-up, with its meaning and default: this file is the one
 * source of `.env.example` and of the settings tables in docs/configuration.md (`npm run env:example` writes
 * both; a test holds them to it). Nothing else in the server reads process.env.
 */

/** The groups of `.env.example` and of docs/configuration.md, in their order. */
/**
 * An http(s) URL. (`z.url()` takes anything `URL` parses: `hibp-mirror:8080` is a URL of scheme `hibp-mirror:`, and a
 * breach check pointed at it failed at every sign-up, quietly.)
 */
const httpUrl = () => z.url({ protocol: /^https?$/, error: 'must be an http:// or https:// URL' });

/** Whether Node's resolver takes these servers (`ip` or `ip:port`, comma-separated). */
function resolverTakes(setting: string): boolean {
  try {
    new Resolver().setServers(
      setting
        .split(',')
        .map((s) => s.trim())
        .filter((s) => s !== ''),
    );
    return true;
  } catch {
    return false;
  }
}

export const SETTING_GROUPS = {
  process: 'The process',
  addresses: 'Public addresses',
  stores: 'Database and shared state',
  security: 'Secrets, proxies and lookups',
  mail: 'E-mail',
  limits: 'Limits',
  proxy: 'Proxy-mode hostnames',
  search: 'Search connections',
  export: 'Export copies',
  billing: 'Billing',
  observability: 'Logs and metrics',
} as const;

export interface SettingHelp {
  group: keyof typeof SETTING_GROUPS;
  /** What it does: markdown, links relative to docs/. */
  meaning: string;
  /** What happens when it is unset, for a setting without a fixed default (markdown). */
  unset?: string;
  /** Who sets it; the operator when not said. */
  who?: string;
  /** `.env.example` never shows a value for it. */
  secret?: true;
}

/** Each setting's help, attached to its schema with `.register(help, …)`. */
export const help = z.registry<SettingHelp>();

/** An address a server can listen on: an IP address, or a host name (not a dotted number that is no address). */
function isListenHost(value: string): boolean {
  if (isIP(value) !== 0) return true;
  const hostName = /^[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?(\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*$/i;
  return value.length <= 253 && hostName.test(value) && !/^[\d.]+$/.test(value);
}

const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development').register(help, {
    group: 'process',
    meaning:
      '`production` keeps links, tokens and addresses out of the log (see [Accounts and sign-in](product/accounts.md#accounts-and-sign-in) and [Observability](operations/observability.md#logs)) and refuses unsafe settings at start-up ([Start-up checks](#start-up-checks)); `development`, `test`',
    who: 'operator (`production` in production); the test harness sets `test`',
  }),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080).register(help, {
    group: 'process',
    meaning: 'port to listen on (`0` picks a free one; one in use ends the start, saying so)',
  }),
  HOST: z
    .string()
    .refine(isListenHost, 'must be an IP address (127.0.0.1, 0.0.0.0 for every interface, ::) or a host name of this machine')
    .default('127.0.0.1')
    .register(help, {
      group: 'process',
      meaning: 'address to listen on (`0.0.0.0` for every interface)',
    }),
  DATA_DIR: z.string().default('./.data').register(help, {
    group: 'process',
    meaning:
      'embedded PostgreSQL files, generated app secret, local mail outbox, ingest spill files (made if missing; one that cannot be made or written ends the start, saying so)',
  }),
  ENV_FILE: z.string().optional().register(help, {
    group: 'process',
    unset: '`.env` in the working directory, when there is one',
    meaning:
      'a file of `NAME=value` lines read before the other settings ([The `.env` file](#the-env-file)); variables set in the environment win over it. Set it in the environment, not in the file',
  }),
  DATABASE_URL: z
    .string()
    .regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL')
    .optional()
    .register(help, {
      group: 'stores',
      unset: 'embedded PostgreSQL in `DATA_DIR/postgres`',
      meaning: '`postgres://user:pass@host:5432/db` of a real PostgreSQL (14+)',
      who: 'operator (unset for the embedded PostgreSQL)',
      secret: true,
    }),
  DATABASE_WAIT_SECONDS: z.coerce.number().int().min(0).max(3600).default(30).register(help, {
    group: 'stores',
    meaning:
      'how long a start waits for the PostgreSQL at `DATABASE_URL` while it does not answer yet (refused, unknown host, starting up), trying again every few seconds; then the start ends, saying why. `0`: no wait. A wrong user or password ends it at once',
    who: 'operator (a database started beside the service)',
  }),
  POSTGRES_SETTINGS_FILE: z.string().optional().register(help, {
    group: 'stores',
    unset: "the embedded PostgreSQL starts with PostgreSQL's own defaults",
    meaning:
      'a file of PostgreSQL settings (postgresql.conf lines, `name = value`) the embedded PostgreSQL starts with; `infra/postgres/1gb.conf` is the one for a 1 GB machine ([PostgreSQL on a 1 GB machine](operations/deploy.md#postgresql-on-a-1-gb-machine)). Ignored with `DATABASE_URL`: a PostgreSQL of your own takes the file as an `include` in its postgresql.conf',
    who: 'operator (embedded PostgreSQL on a small machine)',
  }),
  REDIS_URL: z
    .string()
    .regex(/^rediss?:\/\/[^,\s]+(\s*,\s*rediss?:\/\/[^,\s]+)*$/, 'must be a redis:// URL (or a comma-separated list of them)')
    .optional()
    .register(help, {
      group: 'stores',
      unset: 'in-process hot state (one node only), unless `REDIS_CLUSTER_NODES` is set',
      meaning:
        '`redis://host:6379` of a Redis or Valkey shared by every node (`rediss://` for TLS). Several URLs separated by commas are the nodes of a Redis Cluster, as `REDIS_CLUSTER_NODES`',
      who: 'operator (needed for more than one node)',
      secret: true,
    }),
  REDIS_CLUSTER_NODES: z
    .string()
    .regex(
      /^(rediss?:\/\/)?[^,\s]+:\d+(\s*,\s*(rediss?:\/\/)?[^,\s]+:\d+)*$/,
      'must be a comma-separated list of host:port (or redis:// URLs with their ports)',
    )
    .optional()
    .register(help, {
      group: 'stores',
      unset: 'no cluster: `REDIS_URL` (one Redis), or in-process hot state',
      meaning:
        'some nodes of a Redis Cluster, `host:port,host:port` (the client finds the others): hot state and the write buffer then use the cluster ([Scaling out](operations/scale-out.md#redis-cluster)). Give nodes as `redis://:password@host:port` (`rediss://` for TLS) when the cluster needs a password. Not together with `REDIS_URL`',
      who: 'operator (a Redis Cluster instead of one Redis)',
      secret: true,
    }),
  SMTP_URL: z
    .string()
    .regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL')
    .optional()
    .register(help, {
      group: 'mail',
      unset: 'e-mails are appended to `DATA_DIR/outbox.ndjson` and written to the log (recipient and subject only in production)',
      meaning: '`smtp://user:pass@host:587` or `smtps://...`',
      secret: true,
    }),
  MAIL_FROM: z.string().default('Unseen Stats <no-reply@localhost>').register(help, {
    group: 'mail',
    meaning: 'sender of every e-mail (production warns while it is the default)',
  }),
  BASE_URL: httpUrl().optional().register(help, {
    group: 'addresses',
    unset: '`http://<HOST>:<PORT>` (`localhost` when `HOST` is `0.0.0.0` or `::`); production refuses to start without it',
    meaning: 'public address of the API (page-script snippets, download links, the OpenAPI document); https in production',
  }),
  APP_URL: httpUrl().optional().register(help, {
    group: 'addresses',
    unset: '`BASE_URL`',
    meaning: 'public address of the dashboard; e-mail links are `{APP_URL}/<page>?token=…`; https in production',
  }),
  COLLECT_URL: httpUrl().optional().register(help, {
    group: 'addresses',
    unset: '`{BASE_URL}/collect`',
    meaning: 'where page reports go',
  }),
  CHALLENGE_URL: httpUrl().optional().register(help, {
    group: 'addresses',
    unset: '`{BASE_URL}/challenge`',
    meaning: 'the bot-check page (give it a path, such as `/challenge`: the service serves the check at that path)',
  }),
  ALLOW_HTTP_LOCALHOST: z.stringbool().default(false).register(help, {
    group: 'addresses',
    meaning:
      '`true`: production accepts `http://` public addresses on `localhost`, `127.0.0.1` or `[::1]` (trying the production mode on one machine; tests). Any other host must be https',
    who: 'whoever runs production mode on one machine',
  }),
  ALERT_WEBHOOKS_TO_LOOPBACK: z.stringbool().default(false).register(help, {
    group: 'addresses',
    meaning:
      '`true`: alert webhooks may be `http://` and go to `127.0.0.1` or `[::1]` (tests; a receiver on the same machine). Otherwise they must be https to a public address',
    who: 'tests; whoever receives alert webhooks on the API machine itself',
  }),
  PROXY_PRIVATE_ORIGINS: z.stringbool().default(false).register(help, {
    group: 'addresses',
    meaning:
      "`true`: proxy-mode origins may be private or loopback addresses (`10.0.0.5`, `127.0.0.1`, a name resolving to one). Otherwise an origin must be a public address, checked when it is saved and at every connection, so no customer can point the proxy at the service's own network",
    who: 'a single-tenant install whose origins live on its own network; tests (origins on 127.0.0.1)',
  }),
  APP_SECRET: z.string().min(32, 'must be at least 32 characters').optional().register(help, {
    group: 'security',
    unset: 'generated once into `DATA_DIR/app-secret` (development and test only: production refuses to start without it)',
    meaning:
      '32+ characters; encrypts stored secrets (TOTP) and idempotency records, and keys their fingerprints. The same on every node (`openssl rand -base64 48`)',
    who: 'operator (the same on every node)',
    secret: true,
  }),
  PWNED_PASSWORDS_URL: httpUrl().optional().register(help, {
    group: 'security',
    unset: 'offline list only',
    meaning: 'optional breach range service speaking the Pwned Passwords range API (`GET {url}/range/{5 hex}`)',
    who: 'operator (optional)',
  }),
  TRUST_PROXY: z.stringbool().default(false).register(help, {
    group: 'security',
    meaning:
      '`true` behind a reverse proxy: client address from `X-Forwarded-For` (production then wants `TRUST_PROXY_HOPS` set)',
    who: 'operator (behind a proxy)',
  }),
  TRUST_PROXY_HOPS: z.coerce.number().int().min(1).max(10).default(1).register(help, {
    group: 'security',
    meaning:
      'proxies in front that append to `X-Forwarded-For` (1-10): the client address is the entry this many places from the right (what the outermost trusted proxy saw), so what a client writes further left is ignored (see [`infra/README.md`](../infra/README.md))',
    who: 'operator (behind a proxy: always, in production)',
  }),
  DNS_SERVERS: z
    .string()
    .regex(/^[0-9a-f.:[\]]+(\s*,\s*[0-9a-f.:[\]]+)*$/i, 'must be addresses such as 1.1.1.1 or 127.0.0.1:5353, comma-separated')
    // What the resolver takes (`1.1.1` or `10.0.0.256` passed the pattern, and every lookup then failed).
    .refine(resolverTakes, 'must be addresses such as 1.1.1.1 or 127.0.0.1:5353, comma-separated')
    .optional()
    .register(help, {
      group: 'security',
      unset: 'the system resolver',
      meaning:
        'resolvers for hostname verification (proxy-mode hostnames’ records too) and crawler verification, `ip` or `ip:port`, comma-separated',
      who: 'operator (optional); tests point it at a local DNS server',
    }),
  EDGE_API_URL: httpUrl().default('https://api.cloudflare.com/client/v4').register(help, {
    group: 'proxy',
    meaning: 'custom-hostname API of the edge platform (Cloudflare-for-SaaS style) for proxy-mode hostnames',
    who: 'operator; tests point it at a local stand-in',
  }),
  EDGE_API_TOKEN: z.string().optional().register(help, {
    group: 'proxy',
    unset:
      'proxy-mode hostnames are carried by the built-in ingress ([Caddy in front](operations/deploy.md#proxy-modes-ingress-caddy))',
    meaning: 'API token for that API',
    who: 'operator (for proxy mode through an edge platform)',
    secret: true,
  }),
  EDGE_ZONE_ID: z.string().optional().register(help, {
    group: 'proxy',
    unset: 'as `EDGE_API_TOKEN`',
    meaning: 'the zone of that API holding the custom hostnames',
    who: 'operator (for proxy mode through an edge platform)',
  }),
  PROXY_CNAME_TARGET: z.string().optional().register(help, {
    group: 'proxy',
    unset: '`proxy.<BASE_URL host>`',
    meaning:
      'where proxy-mode hostnames point their CNAME: the ingress carrying their traffic (the Caddy machine, or the edge platform)',
  }),
  MCP_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(600).register(help, {
    group: 'limits',
    meaning: 'MCP calls a token may make per minute (each batch member counts); over it, 429 with `Retry-After`',
  }),
  REST_CALLS_PER_MINUTE: z.coerce.number().int().min(1).default(600).register(help, {
    group: 'limits',
    meaning:
      'REST requests an API token may make per minute (sessions and shared links are not counted); over it, 429 with `Retry-After`',
  }),
  COLLECT_REPORTS_PER_ADDRESS_PER_MINUTE: z.coerce.number().int().min(1).default(600).register(help, {
    group: 'limits',
    meaning:
      'page reports one client address may send per minute, over all sites; past it they are dropped (still 202) and counted in the site’s install status ([limits](operations/limits.md))',
    who: 'operator (tests lower it)',
  }),
  COLLECT_REPORTS_PER_SITE_PER_MINUTE: z.coerce.number().int().min(1).default(60_000).register(help, {
    group: 'limits',
    meaning: 'page reports one site may receive per minute; past it they are dropped and counted',
  }),
  COLLECT_BATCHES_PER_SITE_PER_MINUTE: z.coerce.number().int().min(1).default(6_000).register(help, {
    group: 'limits',
    meaning: 'edge SDK batches (up to 500 records each) one site may send per minute; past it they are dropped and counted',
  }),
  BEHAVIOUR_VISITORS_PER_SITE: z.coerce.number().int().min(10).default(10_000).register(help, {
    group: 'limits',
    meaning:
      'visitors one site’s behaviour memory keeps a day, the busiest by requests seen ([Bot protection](product/protection.md#behaviour-memory)); at most 10,000 for edges to see every flagged one',
    who: 'operator (tests lower it)',
  }),
  BEHAVIOUR_VISITORS_PER_NODE: z.coerce.number().int().min(100).default(200_000).register(help, {
    group: 'limits',
    meaning: 'visitors the in-process hot store keeps over all sites (Redis ignores it)',
    who: 'operator (single node)',
  }),
  // At most what a Node timer holds (it is the pool's connection timeout too): past it a timer fires at once.
  STATS_TIMEOUT_MS: z.coerce.number().int().min(100).max(2_147_483_647).default(15_000).register(help, {
    group: 'limits',
    meaning: 'PostgreSQL `statement_timeout` of stats questions; past it the answer is 503 saying to narrow the range',
  }),
  STATS_POOL_SIZE: z.coerce.number().int().min(1).max(100).default(10).register(help, {
    group: 'limits',
    meaning:
      'database connections of the stats pool (separate from sign-in, collect and ingest); one workspace holds at most half of them',
  }),
  STATS_CONCURRENT_PER_WORKSPACE: z.coerce.number().int().min(1).default(8).register(help, {
    group: 'limits',
    meaning: 'stats questions one workspace may have running at once (a batch counts once); past it, 429 with `Retry-After`',
  }),
  INGEST_BUFFER_MAX_ROWS: z.coerce.number().int().min(1000).default(200_000).register(help, {
    group: 'limits',
    meaning:
      'rows the write buffer holds at most (in-process: all tables together; Redis: per table); when full, collect answers 503 with `Retry-After`',
  }),
  INGEST_BUFFER_MAX_MB: z.coerce.number().int().min(16).default(128).register(help, {
    group: 'limits',
    meaning:
      "the in-process write buffer's rows' size at most, their text counted in characters (rows of many properties reach it before the rows' maximum); when reached, collect answers 503 with `Retry-After`",
  }),
  SEARCH_GOOGLE_API_URL: httpUrl().default('https://searchconsole.googleapis.com').register(help, {
    group: 'search',
    meaning: 'Search Console API base ([Search connections](product/search.md#search-connections))',
    who: 'tests (a local stand-in); operators leave it',
  }),
  SEARCH_BING_API_URL: httpUrl().default('https://ssl.bing.com/webmaster/api.svc/json').register(help, {
    group: 'search',
    meaning: 'Bing Webmaster Tools JSON API base',
    who: 'tests (a local stand-in); operators leave it',
  }),
  SEARCH_SERVICE_ACCOUNT_KEY: z.string().optional().register(help, {
    group: 'search',
    unset: 'delegated mode not offered (503)',
    meaning:
      'this service’s own Google service-account key file (JSON text; an RSA key of 2,048–4,096 bits, as customers’ keys); its address is the `serviceAccount` customers grant access to',
    who: 'operator (optional)',
    secret: true,
  }),
  EXPORT_S3_BUCKET: z.string().min(3).optional().register(help, {
    group: 'export',
    unset: 'copies in `DATA_DIR/exports` on each node',
    meaning: 'keep export copies in this S3 bucket, shared by every node ([Export](product/export.md#export))',
    who: 'operator (several nodes)',
  }),
  EXPORT_S3_ENDPOINT: httpUrl().optional().register(help, {
    group: 'export',
    unset: 'AWS',
    meaning: 'an S3-compatible endpoint (MinIO, R2, …; path-style addressing)',
    who: 'operator; tests point it at a local S3 server',
  }),
  EXPORT_S3_REGION: z.string().default('us-east-1').register(help, {
    group: 'export',
    meaning: 'the bucket’s region',
  }),
  EXPORT_S3_PREFIX: z.string().default('exports/').register(help, {
    group: 'export',
    meaning: 'the key prefix of export copies',
  }),
  EXPORT_S3_ACCESS_KEY_ID: z.string().optional().register(help, {
    group: 'export',
    unset: 'the AWS SDK’s own credential chain',
    meaning: 'access key of the bucket’s credentials',
    secret: true,
  }),
  EXPORT_S3_SECRET_ACCESS_KEY: z.string().optional().register(help, {
    group: 'export',
    unset: 'the AWS SDK’s own credential chain',
    meaning: 'secret key of the bucket’s credentials',
    secret: true,
  }),
  STRIPE_SECRET_KEY: z.string().min(8).optional().register(help, {
    group: 'billing',
    unset: 'billing "not configured" (503), everyone on Free',
    meaning: 'Stripe secret key ([Billing](product/billing.md#billing)); set it and `STRIPE_WEBHOOK_SECRET`, or neither',
    who: 'operator (to bill)',
    secret: true,
  }),
  STRIPE_WEBHOOK_SECRET: z.string().min(8).optional().register(help, {
    group: 'billing',
    unset: 'as `STRIPE_SECRET_KEY`',
    meaning: 'the signing secret of the Stripe webhook endpoint',
    who: 'operator (to bill)',
    secret: true,
  }),
  STRIPE_API_URL: z
    .url()
    .refine((u) => new URL(u).pathname === '/', 'must be scheme://host[:port] with no path')
    .default('https://api.stripe.com')
    .register(help, {
      group: 'billing',
      meaning: 'Stripe’s API address, `scheme://host[:port]` only (the client adds `/v1/…`)',
      who: 'tests (a local stand-in); operators leave it',
    }),
  LOG_LEVEL: z.enum(['debug', 'info', 'warn', 'error', 'silent']).default('info').register(help, {
    group: 'observability',
    meaning: '`debug`, `info`, `warn`, `error`, `silent`',
  }),
  LOG_FORMAT: z.enum(['json', 'readable']).optional().register(help, {
    group: 'observability',
    meaning: 'log lines as JSON (one object per line) or readable text',
    unset: 'JSON in production, readable otherwise',
  }),
  METRICS_PORT: z.coerce.number().int().min(1).max(65535).optional().register(help, {
    group: 'observability',
    meaning: 'serve Prometheus `/metrics` on this port of its own, not PORT (no token unless METRICS_TOKEN is set)',
    unset: 'no port of its own',
  }),
  METRICS_TOKEN: z.string().min(16, 'must be at least 16 characters').optional().register(help, {
    group: 'observability',
    meaning: 'serve `/metrics` on the main port to `Authorization: Bearer <this>`',
    unset: 'without METRICS_PORT too, `/metrics` answers 404',
    secret: true,
  }),
  ERROR_HOOK: z.string().optional().register(help, {
    group: 'observability',
    meaning: 'error-reporting hook: a module path or package name exporting `report(error, context)`, loaded at start-up',
    unset: 'no hook',
  }),
});

export type Env = z.infer<typeof EnvSchema>;

/** Every setting's name and schema, in the schema's order. */
export const SETTINGS: readonly (readonly [string, z.ZodType])[] = Object.entries(EnvSchema.shape);

/** Settings the server cannot start with: each problem one line. */
export class ConfigError extends Error {
  constructor(
    readonly heading: string,
    readonly problems: string[],
  ) {
    super(`${heading}\n${problems.map((p) => `  ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

export function parseEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const relevant = Object.fromEntries(
    Object.entries(source).filter(([k, v]) => k in EnvSchema.shape && v !== undefined && v !== ''),
  );
  const parsed = EnvSchema.safeParse(relevant);
  if (!parsed.success) {
    throw new ConfigError(
      'Invalid configuration:',
      parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`),
    );
  }
  if (parsed.data.REDIS_URL && parsed.data.REDIS_CLUSTER_NODES) {
    throw new ConfigError('Invalid configuration:', [
      'REDIS_URL and REDIS_CLUSTER_NODES: set one (one Redis, or the nodes of a Redis Cluster), not both',
    ]);
  }
  if (parsed.data.METRICS_PORT !== undefined && parsed.data.METRICS_PORT === parsed.data.PORT) {
    throw new ConfigError('Invalid configuration:', [
      `METRICS_PORT: ${parsed.data.METRICS_PORT} is PORT too; metrics need a port of their own (e.g. ${parsed.data.PORT === 9464 ? 9465 : 9464})`,
    ]);
  }
  if (!parsed.data.STRIPE_SECRET_KEY !== !parsed.data.STRIPE_WEBHOOK_SECRET) {
    throw new ConfigError('Invalid configuration:', [
      'STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET: set both (billing works) or neither (billing not configured)',
    ]);
  }
  return parsed.data;
}

/** The settings given a value (not empty): some checks care whether a default was chosen on purpose. */
export function givenSettings(source: NodeJS.ProcessEnv = process.env): ReadonlySet<keyof Env> {
  return new Set(Object.keys(EnvSchema.shape).filter((k) => source[k]) as (keyof Env)[]);
}

/**
 * Loads `ENV_FILE`, or `.env` in `cwd` when there is one, into `target` as Node's `process.loadEnvFile`
 * does (its parser, `util.parseEnv`; a variable already in `target` wins, even an empty one). Returns the
 * file read, if any; a named `ENV_FILE` that does not exist is an error.
 */
export function loadEnvFile(target: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): string | undefined {
  const named = target.ENV_FILE;
  const file = path.resolve(cwd, named || '.env');
  if (!existsSync(file)) {
    if (named) throw new ConfigError('Invalid configuration:', [`ENV_FILE: no such file: ${file}`]);
    return undefined;
  }
  for (const [name, value] of Object.entries(parseEnvText(readFileSync(file, 'utf8')))) {
    if (target[name] === undefined) target[name] = value;
  }
  return file;
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
