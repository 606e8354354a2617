import type { IncomingMessage } from 'node:http';
import type { Actor } from '../actor/actor.ts';
import type { Face, RequestInfo } from '../actor/request-info.ts';
import { resolveActor } from '../actor/resolve.ts';
import { resolveShareView } from '../actor/share-view.ts';
import type { Deps } from '../core/deps.ts';
import { SESSION_COOKIE } from '../features/auth/sessions.ts';
import type { Ctx } from '../procedures/context.ts';

function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i > 0 && part.slice(0, i).trim() === name) {
      const raw = part.slice(i + 1).trim();
      try {
        return decodeURIComponent(raw);
      } catch {
        return raw; // unknown to us either way: the normal 401
      }
    }
  }
  return undefined;
}

function readBearer(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(header);
  // A malformed Authorization header is an unknown credential (401), never "no credential".
  return m?.[1] ?? '';
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

export function requestInfo(
  req: IncomingMessage,
  face: Face,
  ip: string | undefined,
  encrypted: boolean,
  workspaceQuery?: string,
): RequestInfo {
  const h = req.headers;
  const host = h.host;
  const hostname = host?.replace(/:\d+$/, '') ?? '';
  const header = (name: string) => {
    const v = h[name];
    return Array.isArray(v) ? v[0] : v;
  };
  return {
    face,
    method: req.method ?? 'GET',
    ip,
    userAgent: header('user-agent'),
    sessionCookie: readCookie(header('cookie'), SESSION_COOKIE),
    bearer: readBearer(header('authorization')),
    shareView: face === 'trpc' ? header('x-share-view') : undefined,
    workspaceHint: header('x-workspace') ?? workspaceQuery,
    origin: header('origin'),
    secFetchSite: header('sec-fetch-site'),
    host,
    selfOrigin: host ? `${encrypted ? 'https' : 'http'}://${host}` : undefined,
    insecureLocalhost: !encrypted && LOCAL_HOSTS.has(hostname),
  };
}

export function createCtx(deps: Deps, info: RequestInfo): Ctx {
  let actor: Promise<Actor | null> | undefined;
  const em = deps.orm.em.fork();
  return {
    deps,
    em,
    req: info,
    out: { headers: {}, cookies: [] },
    resolveActor: () => {
      // A shared view is its own caller, whatever cookie the browser also holds.
      actor ??= info.shareView !== undefined ? resolveShareView(deps, em, info.shareView) : resolveActor(em, deps.hot, info);
      return actor;
    },
  };
}
