import type { Site } from '@us/db';
import type { PageReport } from '@us/shared';
import { keptAnswers } from '../../core/cache/kept-answers.ts';
import { type ClientHints, type EnrichInput, type PageUrl, readPageUrl } from '../../core/enrich/index.ts';
import { AppError, forbidden, tooMany } from '../../core/errors.ts';
import { type TlsSummary, tlsOfHeader, tlsSummary } from '../../features/protection/tls.ts';
import type { CollectBudgets } from './budget.ts';
import { connectionTls } from './connection-tls.ts';
import type { CollectExchange, ProxyTrust } from './exchange.ts';
import type { SiteCache } from './site-cache.ts';

/**
 * Identify: the second stage of the collect path. Which site a report or batch belongs to, whether it
 * may report for it, and who the client is (the connection's address, or the one a trusted proxy names).
 */

export interface Client {
  ip: string;
  ua: string;
  /** The browser's client hints (Sec-CH-UA…), read for the browser and system names only. */
  hints?: ClientHints;
  /** Country and network the site's own proxy or edge already knows (only with its valid secret). */
  known?: EnrichInput['known'];
  /**
   * TLS summary: from the site's own proxy (`x-svc-client-tls`, only with its valid secret), else of the
   * connection that brought the report (`connectionTls`).
   */
  tls: TlsSummary;
}

/**
 * Hosts of the Origin headers seen lately (a site's reports come from a few origins), each parsed once
 * rather than with every report.
 */
const originHostOf = keptAnswers(
  (origin: string): string | null => {
    try {
      return new URL(origin).hostname.toLowerCase();
    } catch {
      return null;
    }
  },
  { max: 1_000, longest: 256 },
);

/**
 * The site of a page report and its page URL (read once, for the check here and the rows): 404 for an
 * unknown key, 403 when the page or its Origin is not on the site's hostnames. A key this node holds no
 * answer for costs a lookup, counted per address first (429 past the budget): made-up keys sent from one
 * address cannot turn into a database query each.
 */
export async function siteOfReport(
  cache: SiteCache,
  report: PageReport,
  origin: string,
  lookups: { budgets: CollectBudgets; ip: string },
): Promise<{ site: Site; page: PageUrl }> {
  if (!cache.knowsKey(report.k) && !(await lookups.budgets.mayLookUpKey(lookups.ip))) {
    throw tooMany(60, 'Too many unknown site keys from this address: wait a minute, then check data-site on the script tag');
  }
  const { site, hostnames } = await cache.siteFor(report.k);
  if (!site) throw new AppError(404, 'Unknown site key: check data-site on the script tag');
  const page = readPageUrl(report.u);
  const originHost = origin ? originHostOf(origin) : null;
  if (!page?.host || !hostnames.has(page.host) || (origin && (!originHost || !hostnames.has(originHost)))) {
    throw forbidden("report from a page that is not on this site's hostnames");
  }
  return { site, page };
}

/** The client hints a browser sends on its own (brands, platform) and the platform version when a page asked for it. */
const hintsOf = (ctx: CollectExchange): ClientHints | undefined => {
  const brands = ctx.get('sec-ch-ua');
  const platform = ctx.get('sec-ch-ua-platform');
  if (!brands && !platform) return undefined;
  return { brands, platform, platformVersion: ctx.get('sec-ch-ua-platform-version') };
};

/**
 * The client of a page report. Proxy headers (`x-svc-client-ip/-country/-asn/-as-org/-tls`) count only with
 * this site's valid secret in `x-svc-proxy`; otherwise the connection's own address and TLS (the trusted
 * hop's `X-Forwarded-Tls` or this node's TLS socket: the browser's own connection when nothing proxies it).
 * A secret this node does not know costs a lookup, counted per address as the edge path counts it: past the
 * budget the report is still counted, as not proxied.
 */
export async function clientOfReport(
  ctx: CollectExchange,
  cache: SiteCache,
  budgets: CollectBudgets,
  siteId: string,
  trust: ProxyTrust,
): Promise<Client> {
  const ua = ctx.get('user-agent');
  const hints = hintsOf(ctx);
  const secret = ctx.get('x-svc-proxy');
  const mayLookUp = secret !== '' && (cache.knowsSecret(secret) || (await budgets.mayLookUpSecret(ctx.ip)));
  if (!mayLookUp || (await cache.siteIdForSecret(secret)) !== siteId) {
    return { ip: ctx.ip, ua, hints, tls: tlsSummary(connectionTls(ctx.req, trust), null) };
  }
  const asn = Number(ctx.get('x-svc-client-asn'));
  return {
    ip: ctx.get('x-svc-client-ip') || ctx.ip,
    ua,
    hints,
    known: {
      country: ctx.get('x-svc-client-country') || null,
      asn: Number.isInteger(asn) && asn > 0 ? asn : null,
      asOrg: ctx.get('x-svc-client-as-org') || null,
    },
    tls: tlsOfHeader(ctx.get('x-svc-client-tls')),
  };
}

const NO_SECRET = () => new AppError(401, "Send the site's secret key in the x-svc-proxy header");

/**
 * The site of an edge batch from its secret alone, checked before the body is read (401 otherwise).
 * A secret this node does not know yet costs a lookup, counted per address first (429 past the budget).
 */
export async function siteIdOfSecret(ctx: CollectExchange, cache: SiteCache, budgets: CollectBudgets): Promise<string> {
  const secret = ctx.get('x-svc-proxy');
  if (!secret) throw NO_SECRET();
  if (!cache.knowsSecret(secret) && !(await budgets.mayLookUpSecret(ctx.ip))) {
    throw tooMany(60, 'Too many unknown secrets from this address: wait a minute, then send the site’s secret key');
  }
  const siteId = await cache.siteIdForSecret(secret);
  if (!siteId) throw NO_SECRET();
  return siteId;
}

/** The batch's public key must name the same site as its secret. */
export async function siteOfBatch(cache: SiteCache, key: string, siteId: string): Promise<Site> {
  const { site } = await cache.siteFor(key);
  if (!site || site.id !== siteId) throw NO_SECRET();
  return site;
}
