import type { Env } from './env.ts';

/**
 * What production (NODE_ENV=production) refuses to start with, and what it starts with but warns about:
 * one line per problem, every problem at once. Development and tests start whatever is set.
 * docs/configuration.md, "Start-up checks", says why each one.
 */
export interface Checked {
  refusals: string[];
  warnings: string[];
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);
const isLoopback = (u: URL) => LOOPBACK.has(u.hostname);

/** The public addresses a browser or a customer's site reaches: https, or http on this machine when allowed. */
function publicAddressProblem(name: string, value: string, allowLocalHttp: boolean): string | undefined {
  const u = new URL(value);
  if (u.protocol === 'https:') return undefined;
  if (isLoopback(u)) {
    return allowLocalHttp
      ? undefined
      : `${name} is http on this machine only (${value}): give the public https address, or set ALLOW_HTTP_LOCALHOST=true to try the production mode locally`;
  }
  return `${name} is not https (${value}): sign-in cookies, e-mail links and the page script must not travel in clear text`;
}

/** Third parties' APIs that carry this service's credentials: never in clear text across a network. */
const CREDENTIAL_APIS = ['STRIPE_API_URL', 'EDGE_API_URL', 'SEARCH_GOOGLE_API_URL', 'SEARCH_BING_API_URL'] as const;

export function checkProduction(env: Env, given: ReadonlySet<keyof Env>): Checked {
  const checked: Checked = { refusals: [], warnings: [] };
  if (env.NODE_ENV !== 'production') return checked;
  const { refusals, warnings } = checked;

  if (!env.APP_SECRET) {
    refusals.push('APP_SECRET is not set: give 32+ random characters, the same on every node (openssl rand -base64 48)');
  }
  if (!env.BASE_URL) {
    refusals.push(
      'BASE_URL is not set: give the public https address of the API (page-script snippets, download links and the OpenAPI document carry it)',
    );
  }
  if (!env.APP_URL && !env.BASE_URL) {
    refusals.push('APP_URL is not set (nor BASE_URL, its default): give the public https address of the dashboard');
  }
  for (const name of ['BASE_URL', 'APP_URL', 'COLLECT_URL', 'CHALLENGE_URL'] as const) {
    const value = env[name];
    const problem = value && publicAddressProblem(name, value, env.ALLOW_HTTP_LOCALHOST);
    if (problem) refusals.push(problem);
  }
  if (env.TRUST_PROXY && !given.has('TRUST_PROXY_HOPS')) {
    refusals.push(
      'TRUST_PROXY=true but TRUST_PROXY_HOPS is not set: give the number of proxies in front that append to X-Forwarded-For (1 for one reverse proxy); a wrong count lets clients choose their address',
    );
  }
  for (const name of CREDENTIAL_APIS) {
    const u = new URL(env[name]);
    if (u.protocol === 'http:' && !isLoopback(u)) {
      refusals.push(`${name} is plain http to another machine (${env[name]}): it carries this service's credentials; use https`);
    }
  }

  if (/@localhost\b/i.test(env.MAIL_FROM)) {
    warnings.push(
      `MAIL_FROM is ${env.MAIL_FROM}: mail servers reject or file as spam a sender at localhost; give an address of your domain`,
    );
  }
  if (!env.SMTP_URL) {
    warnings.push(
      'SMTP_URL is not set: e-mails (sign-up confirmations, password resets) go to DATA_DIR/outbox.ndjson and the log, not to people',
    );
  }
  if (!env.DATABASE_URL) {
    warnings.push(
      'DATABASE_URL is not set: running the embedded PostgreSQL in DATA_DIR/postgres (one node; back its files up yourself)',
    );
  }
  if (env.EXPORT_S3_ENDPOINT) {
    const u = new URL(env.EXPORT_S3_ENDPOINT);
    if (u.protocol === 'http:' && !isLoopback(u)) {
      warnings.push(
        `EXPORT_S3_ENDPOINT is plain http (${env.EXPORT_S3_ENDPOINT}): exports and the bucket's signed requests cross the network in clear text; fine on a private network only`,
      );
    }
  }
  return checked;
}
