/**
 * The files an install of the edge SDK needs, filled with a site's values: a Cloudflare Workers project
 * (`wrangler.toml` and the worker) and a Node server (`.env` and the middleware). The server secret is never
 * written into a file meant for the repository: Workers keep it with `wrangler secret put`, Node in its
 * environment; only a secret made a moment ago is filled in (`.env` stays out of version control).
 */
export interface EdgeInstallValues {
  /** The site's name, for the worker's name. */
  siteName: string;
  /** The site's public key `pk_…`. */
  siteKey: string;
  /** COLLECT_URL: where the SDK asks and reports. */
  collectUrl: string;
  /** The SDK's version, the service's. */
  version: string;
  /** A server secret made just now (shown once), else null. */
  newSecret: string | null;
}

export const EDGE_PACKAGE = '@unseen-stats/edge';

/** A worker name Cloudflare accepts: lower-case letters, digits and dashes. */
export function workerName(siteName: string): string {
  const slug = siteName
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `${slug || 'site'}-gate`;
}

const toml = (s: string) => JSON.stringify(s);

export const installCommand = (v: Pick<EdgeInstallValues, 'version'>) => `npm install ${EDGE_PACKAGE}@${v.version}`;

export function wranglerToml(v: EdgeInstallValues): string {
  return `name = ${toml(workerName(v.siteName))}
main = "src/worker.js"
compatibility_date = "2024-09-23"
# Put the worker in front of your site, e.g.:
# routes = [{ pattern = "www.example.com/*", zone_name = "example.com" }]

[vars]
SVC_SITE_KEY = ${toml(v.siteKey)}
SVC_COLLECT_URL = ${toml(v.collectUrl)}
# SVC_SECRET is a secret, not a var: npx wrangler secret put SVC_SECRET
`;
}

export const WORKER_JS = `import { withUnseen } from '${EDGE_PACKAGE}';

// Decides every request with this site's protection settings (serve, check or refuse),
// passes the served ones to your origin and reports each one to Unseen Stats.
export default withUnseen();
`;

export const WRANGLER_SECRET = 'npx wrangler secret put SVC_SECRET';

export function nodeEnv(v: EdgeInstallValues): string {
  return `SVC_SITE_KEY=${v.siteKey}
SVC_COLLECT_URL=${v.collectUrl}
SVC_SECRET=${v.newSecret ?? '<a server secret of this site: sk_live_…>'}
`;
}

export const NODE_JS = `import express from 'express';
import { protectMiddleware } from '${EDGE_PACKAGE}/node';

const gate = protectMiddleware({
  secret: process.env.SVC_SECRET,
  key: process.env.SVC_SITE_KEY,
  collectUrl: process.env.SVC_COLLECT_URL,
});
const app = express();
app.set('trust proxy', true); // the visitor's address from your load balancer
app.use(gate);
// …your routes…
process.on('SIGTERM', () => void gate.flush().finally(() => process.exit(0)));
`;

/** Where the service serves the SDK's files, for runtimes that import by URL. */
export function sdkUrl(scriptUrl: string, version: string): string {
  return new URL(`/sdk/edge@${version}/index.js`, scriptUrl).href;
}
