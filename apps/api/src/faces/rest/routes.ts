import type { Operation } from '../../procedures/registry.ts';

export interface RestRoute {
  op: Operation;
  method: string;
  pattern: RegExp;
  params: string[];
  /** The OpenAPI path, `{name}` for parameters. */
  path: string;
}

const isParam = (seg: string) => /^\{\w+\}$/.test(seg);

/**
 * Orders two route paths so that a literal segment wins over a parameter at the first segment where
 * they differ in kind: `/goals/results` is tried before `/goals/{goal}`, whatever the router's order.
 */
export function bySpecificity(a: string, b: string): number {
  const sa = a.split('/');
  const sb = b.split('/');
  for (let i = 0; i < Math.min(sa.length, sb.length); i++) {
    const pa = isParam(sa[i] as string);
    const pb = isParam(sb[i] as string);
    if (pa !== pb) return pa ? 1 : -1;
  }
  // Paths of different lengths never match the same URL: any consistent order will do.
  return sa.length - sb.length;
}

/**
 * REST routes from the operations' `openapi` meta: `/v1/sites/{id}` → a pattern capturing `id`; the
 * most specific first (bySpecificity), so a literal path is never taken by a parameter beside it.
 */
export function compileRoutes(ops: Operation[]): RestRoute[] {
  const routes = ops.flatMap((op) => {
    const oa = op.meta.openapi;
    if (!oa || oa.enabled === false) return [];
    const params: string[] = [];
    const source = oa.path
      .split('/')
      .map((seg) => {
        const m = /^\{(\w+)\}$/.exec(seg);
        if (!m) return seg.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        params.push(m[1] as string);
        return '([^/]+)';
      })
      .join('/');
    return [{ op, method: oa.method, pattern: new RegExp(`^${source}/?$`), params, path: oa.path }];
  });
  return routes.sort((x, y) => bySpecificity(x.path, y.path));
}

/** A path segment, percent-decoded; a malformed escape stays as sent (validation then refuses it, never a 500). */
function decodeParam(raw: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    return raw;
  }
}

export function matchRoute(routes: RestRoute[], method: string, path: string) {
  let pathMatched = false;
  for (const route of routes) {
    const m = route.pattern.exec(path);
    if (!m) continue;
    pathMatched = true;
    // HEAD is GET without the body (RFC 9110 9.3.2): Koa leaves the body out.
    if (route.method !== method && !(method === 'HEAD' && route.method === 'GET')) continue;
    const params: Record<string, string> = {};
    route.params.forEach((name, i) => {
      params[name] = decodeParam(m[i + 1] as string);
    });
    return { route, params, pathMatched };
  }
  return { route: undefined, params: {}, pathMatched };
}

/** The methods the routes of `path` take, for the `Allow` header of a method they do not (HEAD beside GET). */
export function allowedMethods(routes: RestRoute[], path: string): string {
  const methods = new Set(routes.filter((r) => r.pattern.test(path)).map((r) => r.method));
  if (methods.has('GET')) methods.add('HEAD');
  return [...methods].sort().join(', ');
}
