import type { IncomingMessage, ServerResponse } from 'node:http';
import { ALWAYS_SERVED_PATHS, isServicePath, passCookie } from '@unseen-stats/edge/protect';
import type { Site } from '@us/db';
import { pathToDecide } from '@us/protection';
import { type BotAction, DECIDE_LIMITS, type RequestRecord } from '@us/shared';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { hotAnswer } from '../../core/hot/within.ts';
import { endAtTurnEnd, type SendAtTurnEnd } from '../../core/http/turn-end.ts';
import { heldNote, repeatGate } from '../../core/observe/repeat-gate.ts';
import { label } from '../../core/observe/request-scope.ts';
import { coarseNetwork } from '../../core/security/client-info.ts';
import { LOOKUP_REFUSED, type ProxyRoute, proxyRoutes } from '../../features/hostnames/index.ts';
import { decideRequest } from '../../features/protection/decide-request.ts';
import type { ProtectedSite } from '../../features/protection/protected-site.ts';
import { addressKey } from '../collect/budget.ts';
import { actOn, sendProxyProblem } from './answers.ts';
import { forward, originAgent } from './forward.ts';
import { forwardedOf } from './forwarded.ts';
import { MAX_PROXY_HOPS, proxyHopsOf } from './headers.ts';
import { ownHosts, proxyHostOf } from './host.ts';
import { PROXY_LIMITS, type ProxyLimits } from './limits.ts';
import { proxyRecorder } from './recording.ts';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

export interface ProxyFaceParts {
  /** The site with its pass key and return hosts (the collect path's cache). */
  protectedSite(siteId: string): Promise<ProtectedSite | null>;
  /** The ingest path of request records (`/collect/requests`'s). */
  recordRequests(site: Site, records: RequestRecord[]): Promise<unknown>;
  /** The server's turn-end writer (`core/http/turn-end.ts`). */
  send: SendAtTurnEnd;
  /** Where a request that is not proxied after all goes (the collect lane, then Koa). */
  next: Handler;
  limits?: Partial<ProxyLimits>;
}

/** What the gate said about one request, as it is recorded. */
interface Gate {
  action: BotAction;
  reason: string;
  risk?: number;
  challengeUrl?: string;
  /** A declared crawler's verdict, recorded with the request. */
  verifiedBot?: boolean;
}

/** Client closed the request before the origin answered (as nginx logs it). */
const CLIENT_LEFT = 499;

const header = (req: IncomingMessage, name: string): string => {
  const v = req.headers[name];
  return (Array.isArray(v) ? v.join(', ') : v) ?? '';
};

/**
 * Proxy mode, carried by the service itself: a request whose Host is a live proxy hostname
 * (`features/hostnames/proxy-route.ts`) is decided like `POST /collect/decide` decides, then forwarded to
 * the hostname's origin (allow), sent to the check page or refused (`answers.ts`), and recorded like an edge
 * SDK's request record (`recording.ts`), unless it came with `Sec-GPC: 1`. `/_us/*` is the service's own
 * path on the customer's host (`next`: Koa's first-party routes); robots.txt and security.txt are forwarded
 * without deciding. The service's own hostnames are never proxied. docs/operations/proxy-mode.md.
 */
export function proxyFace(deps: Deps, parts: ProxyFaceParts) {
  const limits: ProxyLimits = { ...PROXY_LIMITS, ...parts.limits };
  const routes = proxyRoutes(deps);
  const own = ownHosts();
  const agent = originAgent(limits, deps.env.PROXY_PRIVATE_ORIGINS);
  const recorder = proxyRecorder(parts.recordRequests, deps.logger);
  // An origin that is down is met by each of its visitors: one line per origin every 10 s.
  const originLines = repeatGate();
  const trust = { trust: deps.env.TRUST_PROXY, hops: deps.env.TRUST_PROXY_HOPS };
  /** Requests in progress by site id, and by site and client network (`clientKey`). */
  const inProgress = new Map<string, number>();
  const clientKey = (siteId: string, client: string) => `${siteId}|${coarseNetwork(client) ?? client}`;

  /** Takes the request when its Host may be a live proxy hostname; false leaves it to the rest of the server. */
  function take(req: IncomingMessage, res: ServerResponse): boolean {
    if (deps.lifecycle.draining) return false;
    const url = req.url ?? '';
    if (!url.startsWith('/')) return false;
    const host = proxyHostOf(req.headers.host);
    if (!host || own(deps.urls).has(host)) return false;
    const at = Date.now();
    const route = routes.routeFor(host, () => mayLookUpHost(req));
    if (route === null) return false;
    if (!(route instanceof Promise)) {
      routed(req, res, host, route, at);
      return true;
    }
    route.then(
      (r) => {
        if (r === LOOKUP_REFUSED) return refuseLookup(res);
        return r ? routed(req, res, host, r, at) : parts.next(req, res);
      },
      (err) => {
        label('proxy', '(proxied)', 'proxy');
        deps.logger.error('proxy: a hostname could not be looked up', err);
        endAtTurnEnd(res, parts.send);
        sendProxyProblem(
          res,
          new AppError(503, 'This site cannot be reached for a moment: try again shortly', { retryAfter: 5 }),
        );
      },
    );
    return true;
  }

  /**
   * Counts a lookup of a Host this node holds no answer for against the client's address, first and atomically
   * in the hot store (every node shares it). A count that does not answer in 100 ms lets the lookup through.
   */
  async function mayLookUpHost(req: IncomingMessage): Promise<boolean> {
    const key = `proxy:host-lookups:${addressKey(deps.hot, forwardedOf(req, trust, '').client)}`;
    return (await hotAnswer(deps.hot, deps.hot.incr(key, 60), 100, 0)) <= limits.hostLookupsPerAddress;
  }

  function refuseLookup(res: ServerResponse) {
    label('proxy', '(unknown host)', 'proxy');
    endAtTurnEnd(res, parts.send);
    sendProxyProblem(res, new AppError(429, 'Too many unknown hostnames from this address: wait a minute', { retryAfter: 60 }));
  }

  function routed(req: IncomingMessage, res: ServerResponse, host: string, route: ProxyRoute, at: number) {
    const url = req.url as string;
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    // The service's own path on the customer's host: `/_us/pass` after a check, `/_us/internal` links.
    if (isServicePath(path)) return parts.next(req, res);
    // Never the path: it is the customer's visitor's.
    label('proxy', '(proxied)', 'proxy');
    endAtTurnEnd(res, parts.send);
    if (proxyHopsOf(req.headers) >= MAX_PROXY_HOPS) {
      sendProxyProblem(
        res,
        new AppError(502, `The origin of ${host} leads back to this proxy: point the hostname's origin at the site's own server`),
      );
      return;
    }
    serve(req, res, host, route, { url, path, at }).catch((err) => {
      deps.logger.error('proxy: a request failed', err);
      if (!res.headersSent) sendProxyProblem(res, new AppError(500, 'Something went wrong on our side: try again in a moment'));
      else res.destroy();
    });
  }

  async function serve(
    req: IncomingMessage,
    res: ServerResponse,
    host: string,
    route: ProxyRoute,
    r: { url: string; path: string; at: number },
  ) {
    const p = await parts.protectedSite(route.siteId);
    if (!p) {
      sendProxyProblem(res, new AppError(404, `${host} is not served here: check the address`));
      return;
    }
    const { client, forwarded, tls } = forwardedOf(req, trust, header(req, 'host'));
    const ua = header(req, 'user-agent');
    const gate = await gateOf(p, r, { ip: client, ua, host, tls }, req);
    let status: number;
    let html: boolean | undefined;
    const mine = clientKey(route.siteId, client);
    if (gate.action !== 'allow') {
      status = actOn(req, res, { action: gate.action, challengeUrl: gate.challengeUrl });
    } else if ((inProgress.get(route.siteId) ?? 0) >= limits.concurrentPerSite) {
      status = sendProxyProblem(
        res,
        new AppError(503, 'This site has too many requests in progress: try again in a moment', { retryAfter: 1 }),
      );
    } else if ((inProgress.get(mine) ?? 0) >= limits.concurrentPerClient) {
      status = sendProxyProblem(
        res,
        new AppError(429, 'Too many of your requests to this site are in progress: wait for them, then try again', {
          retryAfter: 1,
        }),
      );
    } else {
      ({ status, html } = await forwardCounted(req, res, route, forwarded, mine));
    }
    if (header(req, 'sec-gpc').trim() === '1') return; // Global Privacy Control: decided, never recorded.
    const rec: RequestRecord = {
      at: r.at,
      method: (req.method ?? 'GET').slice(0, 16),
      path: r.path.slice(0, 2048),
      status,
      ms: Math.min(600_000, Math.max(0, Date.now() - r.at)),
      action: gate.action,
      reason: gate.reason.slice(0, 256),
    };
    if (gate.risk !== undefined) rec.risk = gate.risk;
    if (gate.verifiedBot !== undefined) rec.verifiedBot = gate.verifiedBot;
    if (client) rec.ip = client.slice(0, 64);
    if (ua) rec.ua = ua.slice(0, 1024);
    if (html !== undefined) rec.html = html;
    if (tls) rec.tls = tls;
    recorder.add(p.site, rec);
  }

  /** The decision, as the decide endpoint gives it; anything going wrong serves the request (the gate fails open). */
  async function gateOf(
    p: ProtectedSite,
    r: { url: string; path: string },
    who: { ip: string; ua: string; host: string; tls: string | null },
    req: IncomingMessage,
  ): Promise<Gate> {
    const { ip, ua, host, tls } = who;
    if (ALWAYS_SERVED_PATHS.has(r.path)) return { action: 'allow', reason: `always served: ${r.path}` };
    try {
      const pass = passCookie(header(req, 'cookie'));
      const d = await decideRequest(deps, p, {
        ip,
        ua: ua.slice(0, DECIDE_LIMITS.ua),
        path: pathToDecide(r.url, DECIDE_LIMITS.path),
        host,
        ...(tls ? { tls } : {}),
        ...(pass && pass.length <= DECIDE_LIMITS.pass ? { pass } : {}),
      });
      return { action: d.action, reason: d.reason, risk: d.risk, challengeUrl: d.challengeUrl, verifiedBot: d.verifiedBot };
    } catch (err) {
      deps.logger.warn(`proxy: the gate failed, request served (${String(err)})`);
      return { action: 'allow', reason: `fail open: the gate failed (${err instanceof Error ? err.name : 'error'})` };
    }
  }

  /** Forwards within the site's share of requests in progress; a failure to reach the origin is a 502/504 problem. */
  async function forwardCounted(
    req: IncomingMessage,
    res: ServerResponse,
    route: ProxyRoute,
    forwarded: ReturnType<typeof forwardedOf>['forwarded'],
    client: string,
  ): Promise<{ status: number; html?: boolean }> {
    // A visitor who left while the gate decided: its answer's 'close' has fired already, so a count taken now
    // would never be given back (enough of them and the site answered 503 to everyone on this node).
    if (res.destroyed || req.socket.destroyed) return { status: CLIENT_LEFT };
    // The site's requests in progress, and its client network's among them (both given back once the answer ends).
    for (const key of [route.siteId, client]) {
      inProgress.set(key, (inProgress.get(key) ?? 0) + 1);
      res.once('close', () => {
        const n = (inProgress.get(key) ?? 1) - 1;
        if (n > 0) inProgress.set(key, n);
        else inProgress.delete(key);
      });
    }
    const visitorBase = `${forwarded.proto}://${forwarded.host}`;
    const out = await forward(
      agent,
      req,
      res,
      { origin: route.origin, path: req.url as string, visitorBase, forwarded },
      deps.logger,
    );
    if (out.kind === 'answered') return { status: out.status, html: out.status === 200 ? out.html : undefined };
    if (out.kind === 'left') return { status: CLIENT_LEFT };
    const gate = originLines(`${route.origin} ${out.timeout}`);
    if (gate.write) {
      deps.logger.info(
        `proxy: origin ${route.origin} ${out.timeout ? 'too slow' : 'unreachable'} (${String(out.error)})${heldNote(gate.held)}`,
      );
    }
    const err = out.timeout
      ? new AppError(504, 'The site’s origin did not answer in time: try again later', { retryAfter: 5 })
      : new AppError(502, 'The site’s origin cannot be reached: try again later', { retryAfter: 5 });
    return { status: sendProxyProblem(res, err) };
  }

  return {
    take,
    /** Sends every request record waiting; before the write buffer's last flush at shutdown. */
    flushRecords: () => recorder.flush(),
    /** Closes the connections to origins (once the server has closed). */
    close: () => agent.close(),
  };
}

export type ProxyFace = ReturnType<typeof proxyFace>;
