import type { Operation } from '../trpc/registry.ts';

export interface RestRoute {
  op: Operation;
  method: string;
  pattern: RegExp;
  params: string[];
}

/** REST routes from the operations' `openapi` meta: `/v1/sites/{id}` → a pattern capturing `id`. */
export function compileRoutes(ops: Operation[]): RestRoute[] {
  return ops.flatMap((op) => {
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
    return [{ op, method: oa.method, pattern: new RegExp(`^${source}/?$`), params }];
  });
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
    if (route.method !== method) continue;
    const params: Record<string, string> = {};
    route.params.forEach((name, i) => {
      params[name] = decodeParam(m[i + 1] as string);
    });
    return { route, params, pathMatched };
  }
  return { route: undefined, params: {}, pathMatched };
}
