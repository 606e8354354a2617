import {
  behaviourCode,
  classifyUserAgent,
  decide,
  isHostingNetwork,
  issueTicket,
  type RequestFacts,
  ticketRisk,
  type Verification,
  verifyPass,
} from '@us/protection';
import type { DecideAnswer, DecideRequest } from '@us/shared';
import type { Deps } from '../../core/deps.ts';
import { countryOf } from '../../core/enrich/geo.ts';
import { networkOf } from '../../core/enrich/network.ts';
import { readSettings } from '../sites/index.ts';
import { visitorSigns } from './behaviour.ts';
import { lookupWait, verifyCrawler } from './crawler-verification.ts';
import { noReturnReason, noteNoReturn } from './no-return.ts';
import type { ProtectedSite } from './protected-site.ts';
import { TLS_MISMATCH, tlsMismatch, tlsSummary } from './tls.ts';
import { dayKeyFor } from './visitor-code.ts';

/** The decide endpoint's request, checked: the address valid, the host a bare lower-case hostname. */
export type DecideInput = DecideRequest & { host: string };

/**
 * The verdict of the platform when it gave one (`verifiedBot`), else the operator's published ranges or
 * forward-confirmed reverse DNS (`crawler-verification.ts`), waited for within the caller's budget: a
 * lookup still running then is `unknown` for this request and decides the next one. Browsers are never
 * looked up.
 */
async function verificationOf(
  deps: Pick<Deps, 'env' | 'hot'>,
  siteId: string,
  req: DecideInput,
  ua: ReturnType<typeof classifyUserAgent>,
): Promise<Verification> {
  if (req.verifiedBot !== undefined) return req.verifiedBot ? 'verified' : 'failed';
  if (ua.kind !== 'bot' || !ua.bot) return 'unknown';
  return (await verifyCrawler(deps, siteId, ua.bot, req.ip, lookupWait(req.budgetMs))).verification;
}

/** Everything known about the request, looked up in parallel, each lookup within its own budget. */
async function factsOf(deps: Pick<Deps, 'env' | 'hot'>, p: ProtectedSite, req: DecideInput): Promise<RequestFacts> {
  const siteId = p.site.id;
  const ua = classifyUserAgent(req.ua);
  const net = req.asn !== undefined ? { asn: req.asn, org: req.asOrg ?? '' } : networkOf(req.ip);
  const tls = tlsSummary(req.tls, req.tlsClass);
  const [verification, pass, memory] = await Promise.all([
    verificationOf(deps, siteId, req, ua),
    req.pass ? verifyPass(p.passKey, siteId, req.ua, req.ip, req.pass) : false,
    ua.kind === 'browser'
      ? dayKeyFor(deps.hot, siteId).then(({ dayKey }) =>
          behaviourCode(dayKey, req.ip, req.ua).then((code) => visitorSigns(deps, siteId, code)),
        )
      : [],
  ]);
  return {
    path: req.path.split('?')[0] as string,
    ua,
    verification,
    asn: net?.asn ?? null,
    hosting: isHostingNetwork(net),
    country: (req.country ?? countryOf(req.ip))?.toUpperCase() ?? null,
    pass,
    memory,
    signs: tlsMismatch(req.ua, tls) ? [TLS_MISMATCH] : [],
  };
}

/**
 * POST {COLLECT_URL}/decide: the decision for one request, as an edge with the protection config would
 * make it, with the service's own lookups (network, country, crawler verification, behaviour memory). A
 * challenge comes with the check page's address and a return ticket for the host asked for. When that host
 * is not one a check may return to (verified, or active in proxy mode), it stays a challenge without a check
 * page, as at the edge: the caller answers the 403 page saying the check cannot bring the visitor back (a
 * Host header the visitor chose never turns a challenge into "allow"). Such challenges are noted for the
 * site's setup problems (`no-return.ts`), in the background.
 */
export async function decideRequest(
  deps: Pick<Deps, 'env' | 'hot' | 'urls'>,
  p: ProtectedSite,
  req: DecideInput,
): Promise<DecideAnswer> {
  const settings = readSettings(p.site.settings).bot;
  if (settings.mode === 'off') {
    // Nothing to look up: off serves everything.
    const facts = {
      path: req.path.split('?')[0] as string,
      ua: classifyUserAgent(req.ua),
      verification: 'unknown',
      asn: null,
      hosting: false,
      country: null,
      pass: false,
    } as const;
    return decide(settings, facts);
  }
  const facts = await factsOf(deps, p, req);
  // What the verification found goes with the answer, so the request is recorded as the crawler it proved to be.
  const decision: DecideAnswer =
    facts.verification === 'unknown'
      ? decide(settings, facts)
      : { ...decide(settings, facts), verifiedBot: facts.verification === 'verified' };
  if (decision.action !== 'challenge') return decision;
  if (!p.returnHosts.includes(req.host)) {
    void noteNoReturn(deps, p.site.id, [req.host]);
    return { ...decision, reason: noReturnReason(decision.reason) };
  }
  const ticket = await issueTicket(p.passKey, { s: p.site.id, h: req.host, p: req.path, r: ticketRisk(decision.risk) });
  return { ...decision, challengeUrl: `${deps.urls.challenge}?t=${encodeURIComponent(ticket)}` };
}
