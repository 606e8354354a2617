// GET /v1/sites/{id}/search, PUT …/search/primary and …/secondary, DELETE of either. Credentials are
// checked against the provider before they are kept (sealed with the app secret), never shown again
// and never exported; disconnecting keeps the collected weeks. Connecting again clears a stop of the
// pulls (access.ts); connecting another property (or Bing site) deletes the source's weeks of any other,
// in the same transaction, and the next pull fills the new one's twelve weeks.
import type { EntityManager } from '@mikro-orm/postgresql';
import type { SearchOutput, UpdatePrimarySearchInput, UpdateSecondarySearchInput } from '@us/shared';
import { loadSite } from '../../actor/access.ts';
import type { Actor } from '../../actor/actor.ts';
import type { Deps } from '../../core/deps.ts';
import { AppError, badRequest, notConfigured } from '../../core/errors.ts';
import { type AccessStatus, accessMessage, isVerifiedHostname } from './access.ts';
import { sameSite, userSites } from './bing.ts';
import { accessToken, canReadProperty, propertyHost, readKey, type ServiceAccountKey } from './google.ts';
import { ProviderError } from './provider-error.ts';

type Source = 'primary' | 'secondary';

interface ConnectionRow {
  source: Source;
  mode: 'delegated' | 'service_account' | null;
  property: string;
  account: string | null;
  connected_at: Date;
  last_pull_at: Date | null;
  last_pull_ok: boolean | null;
  last_pull_message: string | null;
  access: AccessStatus;
}

const ownKeys = new WeakMap<Deps['env'], ServiceAccountKey | null>();

/**
 * This service's own account for delegated mode, or null when SEARCH_SERVICE_ACCOUNT_KEY is unset or
 * is not a usable key (then delegated mode is refused with 503 saying so).
 */
export function ownServiceAccount(deps: Deps): ServiceAccountKey | null {
  if (!ownKeys.has(deps.env)) {
    const raw = deps.env.SEARCH_SERVICE_ACCOUNT_KEY;
    let key: ServiceAccountKey | null = null;
    try {
      key = raw ? readKey(raw, deps.env.SEARCH_GOOGLE_API_URL) : null;
    } catch (e) {
      deps.logger.error('SEARCH_SERVICE_ACCOUNT_KEY is not a usable service-account key: delegated mode is off', e);
    }
    ownKeys.set(deps.env, key);
  }
  return ownKeys.get(deps.env) ?? null;
}

const iso = (d: Date | string) => new Date(d).toISOString();
const lastPull = (r: ConnectionRow) =>
  r.last_pull_at ? { at: iso(r.last_pull_at), ok: r.last_pull_ok === true, message: r.last_pull_message } : null;

export async function getSearch(deps: Deps, em: EntityManager, actor: Actor, siteId: string): Promise<SearchOutput> {
  const site = await loadSite(em, actor, siteId);
  const rows = await em.getConnection().execute<ConnectionRow[]>(
    `select source, mode, property, account, connected_at, last_pull_at, last_pull_ok, last_pull_message, access
         from search_connections where site_id = ?`,
    [site.id],
    'all',
  );
  const primary = rows.find((r) => r.source === 'primary');
  const secondary = rows.find((r) => r.source === 'secondary');
  return {
    serviceAccount: ownServiceAccount(deps)?.client_email ?? null,
    primary: primary
      ? {
          mode: primary.mode ?? 'service_account',
          property: primary.property,
          account: primary.account ?? '',
          connectedAt: iso(primary.connected_at),
          lastPull: lastPull(primary),
          status: primary.access,
          statusMessage: accessMessage(primary.access, primary.property, primary.account ?? ''),
        }
      : null,
    secondary: secondary
      ? { siteUrl: secondary.property, connectedAt: iso(secondary.connected_at), lastPull: lastPull(secondary) }
      : null,
  };
}

/** A provider call while credentials are checked: a refusal is 400 on the field at fault, a failure 503. */
async function asked<T>(call: () => Promise<T>, field: string, what: string): Promise<T> {
  try {
    return await call();
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    if (e.status === 400 || e.status === 401 || e.status === 403) throw badRequest(field, `${what}: ${e.message}`);
    throw new AppError(503, `Could not check the connection now (${e.message}): try again in a minute`, { retryAfter: 60 });
  }
}

export async function updatePrimary(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: UpdatePrimarySearchInput,
): Promise<SearchOutput> {
  const site = await loadSite(em, actor, input.id);
  const property = input.property.trim();
  const host = propertyHost(property);
  if (!host)
    throw badRequest('property', 'Give a property as a URL prefix (https://example.com/) or a domain (sc-domain:example.com)');
  let key: ServiceAccountKey;
  if (input.mode === 'delegated') {
    if (input.key !== undefined) throw badRequest('key', 'Delegated mode takes no key: grant the service account access instead');
    const own = ownServiceAccount(deps);
    if (!own) {
      throw notConfigured('Delegated mode is not offered by this server: connect with mode service_account and your own key');
    }
    if (!(await isVerifiedHostname(em, site.id, host))) {
      throw badRequest(
        'property',
        `${host} is not a verified hostname of this site: add and verify it first, or use mode service_account`,
      );
    }
    key = own;
  } else {
    if (input.key === undefined) throw badRequest('key', 'Give the service account key file (JSON) for mode service_account');
    key = readKey(input.key, deps.env.SEARCH_GOOGLE_API_URL);
  }
  const token = await asked(() => accessToken(key), input.mode === 'delegated' ? 'mode' : 'key', 'Google refused the key');
  const readable = await asked(
    () => canReadProperty(deps.env.SEARCH_GOOGLE_API_URL, token, property),
    'property',
    'Google refused the property',
  );
  if (!readable) {
    throw badRequest(
      'property',
      `${key.client_email} has no access to ${property}: add it as a user of the property in Search Console`,
    );
  }
  const sealed = input.mode === 'service_account' ? deps.ciphers.search.encrypt(JSON.stringify(key)) : null;
  await upsert(em, site.id, 'primary', { mode: input.mode, property, account: key.client_email, sealed });
  return getSearch(deps, em, actor, site.id);
}

export async function updateSecondary(
  deps: Deps,
  em: EntityManager,
  actor: Actor,
  input: UpdateSecondarySearchInput,
): Promise<SearchOutput> {
  const site = await loadSite(em, actor, input.id);
  const siteUrl = input.siteUrl.trim();
  try {
    const url = new URL(siteUrl);
    if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error('scheme');
  } catch {
    throw badRequest('siteUrl', 'Give the site as a URL, such as https://example.com/');
  }
  const sites = await asked(() => userSites(deps.env.SEARCH_BING_API_URL, input.apiKey), 'apiKey', 'Bing refused the API key');
  const listed = sites.find((s) => sameSite(s.url, siteUrl));
  if (!listed)
    throw badRequest('siteUrl', `${siteUrl} is not a site of this API key's Bing Webmaster Tools account: add it there first`);
  if (!listed.verified)
    throw badRequest('siteUrl', `${siteUrl} is not verified in Bing Webmaster Tools yet: verify it there first`);
  await upsert(em, site.id, 'secondary', {
    mode: null,
    property: listed.url,
    account: null,
    sealed: deps.ciphers.search.encrypt(input.apiKey),
  });
  return getSearch(deps, em, actor, site.id);
}

/**
 * Connects a source, or connects it again (times from the inserted row: Citus takes only immutable functions
 * in DO UPDATE). The source's weeks of another property (or Bing site) go in the same transaction, under the
 * connection's row lock that a pull stores under (pull.ts): kept, the new property's figures were merged into
 * them. Until a pull of its last twelve weeks succeeds, each pull asks for twelve (`backfilled_at`).
 */
async function upsert(
  em: EntityManager,
  siteId: string,
  source: Source,
  c: { mode: string | null; property: string; account: string | null; sealed: string | null },
): Promise<void> {
  const conn = em.getConnection();
  await conn.transactional(async (trx) => {
    await conn.execute(
      `insert into search_connections (site_id, source, mode, property, account, credentials_enc, connected_at, next_pull_at)
       values (?, ?, ?, ?, ?, ?, now(), now())
       on conflict (site_id, source) do update set mode = excluded.mode, property = excluded.property,
         account = excluded.account, credentials_enc = excluded.credentials_enc, connected_at = excluded.connected_at,
         last_pull_at = null, last_pull_ok = null, last_pull_message = null, failures = 0, access = 'ok',
         next_pull_at = excluded.next_pull_at, backfilled_at = null`,
      [siteId, source, c.mode, c.property, c.account, c.sealed],
      'run',
      trx,
    );
    await conn.execute(
      'delete from search_weeks where site_id = ? and source = ? and property is distinct from ?',
      [siteId, source, c.property],
      'run',
      trx,
    );
  });
}

/** Disconnects a source: its credentials go, its weeks stay. Not connected: 404. */
export async function deleteSource(em: EntityManager, actor: Actor, siteId: string, source: Source): Promise<void> {
  const site = await loadSite(em, actor, siteId);
  const gone = await em
    .getConnection()
    .execute<{ source: string }[]>(
      'delete from search_connections where site_id = ? and source = ? returning source',
      [site.id, source],
      'all',
    );
  if (!gone.length) {
    const which = source === 'primary' ? 'Google Search Console (primary)' : 'Bing Webmaster Tools (secondary)';
    throw new AppError(404, `${which} is not connected for this site: there is nothing to disconnect`);
  }
}
