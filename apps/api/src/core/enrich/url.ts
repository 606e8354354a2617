import { type ClickKind, clickKindOf } from './click-ids.ts';

/**
 * Referrer hostname and utm_* parameters of a page URL. Only these parts are kept, never the full URL
 * (a click id is read for the channel only: `click-ids.ts`).
 */

const MAX_UTM = 128;

const isWeb = (u: URL) => u.protocol === 'http:' || u.protocol === 'https:';

function parse(url: string | null | undefined): URL | null {
  if (!url) return null;
  try {
    const u = new URL(url);
    return isWeb(u) ? u : null;
  } catch {
    return null;
  }
}

/** Lower-case hostname of a referrer URL, or null when empty, invalid or not http(s). */
export function referrerHost(url: string | null | undefined): string | null {
  const u = parse(url);
  if (!u?.hostname) return null;
  return u.hostname.toLowerCase().replace(/\.$/, '');
}

export interface Utm {
  source: string | null;
  medium: string | null;
  campaign: string | null;
}

function param(u: URL, name: string): string | null {
  const v = u.searchParams.get(name)?.trim();
  return v ? v.slice(0, MAX_UTM) : null;
}

const NO_UTM: Utm = Object.freeze({ source: null, medium: null, campaign: null });

function utmOfUrl(u: URL | null): Utm {
  // No query string, no parameters to read (and no URLSearchParams to build).
  if (!u?.search) return NO_UTM;
  return { source: param(u, 'utm_source'), medium: param(u, 'utm_medium'), campaign: param(u, 'utm_campaign') };
}

/** utm_source / utm_medium / utm_campaign of a page URL, each trimmed and at most 128 characters. */
export function utmOf(url: string | null | undefined): Utm {
  return utmOfUrl(parse(url));
}

/** What a page report's URL says: its host (lower case, for the site's hostnames), path, utm parameters and ad click id. */
export interface PageUrl {
  host: string;
  path: string;
  utm: Utm;
  click: ClickKind | null;
}

/** A page URL read once for both the hostname check and the row, or null when it cannot be read. */
export function readPageUrl(url: string): PageUrl | null {
  let u: URL;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  const web = isWeb(u);
  return {
    host: u.hostname.toLowerCase(),
    path: u.pathname || '/',
    utm: utmOfUrl(web ? u : null),
    click: web && u.search ? clickKindOf(u.searchParams) : null,
  };
}

/** The path ('/' when the URL cannot be read), utm parameters and click id of a page URL, from one parse. */
export function pageOf(url: string): Omit<PageUrl, 'host'> {
  const page = readPageUrl(url);
  return page ? { path: page.path, utm: page.utm, click: page.click } : { path: '/', utm: NO_UTM, click: null };
}
