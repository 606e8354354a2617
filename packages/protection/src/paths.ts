// Paths as origins serve them, for rules to match. No imports: the Node SDK's protect() carries this file too.

const UNRESERVED = /^[A-Za-z0-9\-._~]$/;

/**
 * The path an origin serves for `raw`, as rules match it: escapes of unreserved characters decoded (`/%61dmin`),
 * encoded slashes and backslashes (`%2F`, `%5C`, `\`) taken as slashes, repeated slashes one (`//admin`), dot
 * segments resolved (`/./admin`, `/x/../admin`; RFC 3986 5.2.4). Origins serve `/admin` for each of these (nginx
 * decodes `%2F` before it resolves dot segments, Windows servers take `\` as `/`): matched raw, a rule on
 * `/admin` let them all through. Other escapes stay, in capitals.
 */
export function canonicalPath(raw: string): string {
  let path = raw.includes('%')
    ? raw.replace(/%([0-9A-Fa-f]{2})/g, (percent, hex: string) => {
        const c = String.fromCharCode(Number.parseInt(hex, 16));
        if (c === '/' || c === '\\') return '/';
        return UNRESERVED.test(c) ? c : percent.toUpperCase();
      })
    : raw;
  if (path.includes('\\')) path = path.replaceAll('\\', '/');
  if (path.includes('//')) path = path.replace(/\/{2,}/g, '/');
  if (!path.includes('.')) return path;
  const out: string[] = [];
  const segments = path.split('/');
  for (const [i, segment] of segments.entries()) {
    const last = i === segments.length - 1;
    if (segment === '.' || segment === '..') {
      if (segment === '..' && out.length > 1) out.pop();
      if (last) out.push('');
      continue;
    }
    out.push(segment);
  }
  return out.join('/') || '/';
}

/**
 * The path and query of a request as it is sent to be decided: the path made canonical first, then cut to `max`
 * characters. Cut first, `/` + 2,100 characters + `/../admin` was decided as its harmless beginning while the
 * origin served `/admin`; a canonical path cut keeps its beginning, which prefix rules match.
 */
export function pathToDecide(url: string, max: number): string {
  const query = url.indexOf('?');
  const path = canonicalPath(query < 0 ? url : url.slice(0, query));
  return (query < 0 ? path : path + url.slice(query)).slice(0, max);
}

/** A request target as its path and query: an absolute-form target (`http://host/admin`, a visitor's choice) is `/admin`. */
export function originForm(target: string): string {
  if (target.startsWith('/')) return target;
  try {
    const url = new URL(target, 'http://origin.invalid');
    return url.pathname + url.search;
  } catch {
    return '/';
  }
}
