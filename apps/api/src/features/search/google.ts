// Google Search Console (the primary provider): service-account auth by the JWT bearer grant
// (RFC 7523, Google's "OAuth 2.0 for server to server applications"), signed here with node:crypto and
// sent to the key file's own `token_uri` (google-auth-library's JWT client posts to a fixed URL), then
// the Search Console API at SEARCH_GOOGLE_API_URL. A `token_uri` may only name Google's token hosts or
// the configured API's own origin: a key file is stranger input, and must not make us call anywhere.
// Its private key is checked once and signs off the event loop (signing-key.ts).
import type { KeyObject } from 'node:crypto';
import { badRequest } from '../../core/errors.ts';
import { ProviderError, providerAnswer, providerFetch, providerMessage } from './provider-error.ts';
import { checkedSigningKey, signRs256, UnusableKey } from './signing-key.ts';

export interface ServiceAccountKey {
  client_email: string;
  private_key: string;
  private_key_id?: string;
  token_uri: string;
}

const SCOPE = 'https://www.googleapis.com/auth/webmasters.readonly';
const GOOGLE_TOKEN_HOSTS = new Set(['oauth2.googleapis.com', 'accounts.google.com', 'www.googleapis.com']);

const notAKey = (why: string) =>
  badRequest(
    'key',
    `This is not a service-account key file (${why}): in Google Cloud, create a key for a service account as JSON and give that file`,
  );

/** The key file as given (text or object), checked for what the grant needs. */
export function readKey(given: string | Record<string, unknown>, apiUrl: string): ServiceAccountKey {
  let key: Record<string, unknown>;
  if (typeof given === 'string') {
    try {
      key = JSON.parse(given) as Record<string, unknown>;
    } catch {
      throw notAKey('not JSON');
    }
    if (!key || typeof key !== 'object' || Array.isArray(key)) throw notAKey('not a JSON object');
  } else key = given;
  if (key.type !== 'service_account') throw notAKey('its type is not service_account');
  const email = key.client_email;
  if (typeof email !== 'string' || !/^[^@\s]{1,200}@[^@\s]{1,200}$/.test(email)) throw notAKey('no client_email');
  if (typeof key.private_key !== 'string') throw notAKey('no private_key');
  let signer: KeyObject;
  try {
    signer = checkedSigningKey(key.private_key);
  } catch (e) {
    if (!(e instanceof UnusableKey)) throw e;
    throw e.notRsa ? notAKey(e.message) : badRequest('key', e.message);
  }
  const tokenUri = typeof key.token_uri === 'string' ? key.token_uri : 'https://oauth2.googleapis.com/token';
  let url: URL;
  try {
    url = new URL(tokenUri);
  } catch {
    throw notAKey('its token_uri is not a URL');
  }
  const google = url.protocol === 'https:' && GOOGLE_TOKEN_HOSTS.has(url.hostname);
  if (!google && url.origin !== new URL(apiUrl).origin) throw notAKey("its token_uri is not Google's token endpoint");
  const read: ServiceAccountKey = {
    client_email: email,
    private_key: key.private_key,
    token_uri: tokenUri,
    ...(typeof key.private_key_id === 'string' ? { private_key_id: key.private_key_id } : {}),
  };
  signers.set(read, signer);
  return read;
}

/** Keys already parsed and checked, by the key record they belong to (the record is sealed as JSON). */
const signers = new WeakMap<ServiceAccountKey, KeyObject>();

/** The key's private key, parsed and checked once per key record (UnusableKey when refused). */
function signerOf(key: ServiceAccountKey): KeyObject {
  let signer = signers.get(key);
  if (!signer) {
    signer = checkedSigningKey(key.private_key);
    signers.set(key, signer);
  }
  return signer;
}

const b64url = (v: string | Buffer) => Buffer.from(v).toString('base64url');

/** An access token for the key, by the JWT bearer grant at its `token_uri`. */
export async function accessToken(key: ServiceAccountKey, now = Date.now()): Promise<string> {
  const iat = Math.floor(now / 1000);
  const header = { alg: 'RS256', typ: 'JWT', ...(key.private_key_id ? { kid: key.private_key_id } : {}) };
  const claims = { iss: key.client_email, scope: SCOPE, aud: key.token_uri, iat, exp: iat + 3600 };
  const unsigned = `${b64url(JSON.stringify(header))}.${b64url(JSON.stringify(claims))}`;
  const signature = await signRs256(Buffer.from(unsigned), signerOf(key));
  const res = await providerFetch('Google', key.token_uri, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'urn:ietf:params:oauth:grant-type:jwt-bearer',
      assertion: `${unsigned}.${b64url(signature)}`,
    }),
  });
  if (!res.ok) throw new ProviderError('Google', res.status, await providerMessage(res));
  const body = await providerAnswer('Google', res);
  if (typeof body.access_token !== 'string') throw new ProviderError('Google', res.status, 'no access token in the answer');
  return body.access_token;
}

/** Google's 403 reasons that say nothing about access to the property (usage limits, the API off or misconfigured). */
const NOT_ACCESS = new Set([
  'rateLimitExceeded',
  'userRateLimitExceeded',
  'dailyLimitExceeded',
  'quotaExceeded',
  'accessNotConfigured',
  'RATE_LIMIT_EXCEEDED',
  'SERVICE_DISABLED',
  'API_KEY_SERVICE_BLOCKED',
]);

interface GoogleError {
  code?: unknown;
  message?: unknown;
  status?: unknown;
  errors?: { domain?: unknown; reason?: unknown }[];
  details?: { reason?: unknown }[];
}

/** Google's error object from an error body, or null when the body is not Google's JSON (a proxy's page, cut off). */
function googleError(text: string): GoogleError | null {
  try {
    const error = (JSON.parse(text) as { error?: unknown } | null)?.error;
    return error && typeof error === 'object' && !Array.isArray(error) ? (error as GoogleError) : null;
  } catch {
    return null;
  }
}

/** The reasons by which Google says the account may not read the property (403), or that it has no such site (404). */
const NO_ACCESS: Record<number, { status: string; reasons: Set<string> }> = {
  403: { status: 'PERMISSION_DENIED', reasons: new Set(['forbidden', 'insufficientPermissions']) },
  404: { status: 'NOT_FOUND', reasons: new Set(['notFound']) },
};

/**
 * Whether a 403 or 404 is Google saying the account has no access to the property: its JSON error names
 * a permission reason, and no usage limit or state of the API (a 403 for those is Google's, or the
 * operator's project's, not the property's access: taken as withdrawn, it stopped every delegated customer
 * checked in that minute). A body that is not Google's JSON says nothing about access.
 */
function namesNoAccess(status: number, error: GoogleError | null): boolean {
  const expected = NO_ACCESS[status];
  if (!error || !expected) return false;
  const errors = Array.isArray(error.errors) ? error.errors : [];
  const details = Array.isArray(error.details) ? error.details : [];
  const limited =
    errors.some((e) => e?.domain === 'usageLimits' || NOT_ACCESS.has(String(e?.reason))) ||
    details.some((d) => NOT_ACCESS.has(String(d?.reason)));
  if (limited) return false;
  return error.status === expected.status || errors.some((e) => expected.reasons.has(String(e?.reason)));
}

/** Whether the token's account may read the property (Search Console's sites.get). */
export async function canReadProperty(apiUrl: string, token: string, property: string): Promise<boolean> {
  const res = await providerFetch('Google', `${apiUrl}/webmasters/v3/sites/${encodeURIComponent(property)}`, {
    headers: { authorization: `Bearer ${token}` },
  });
  if (res.status === 403 || res.status === 404) {
    const text = await res.text().catch(() => '');
    const error = googleError(text);
    if (namesNoAccess(res.status, error)) return false;
    const said = typeof error?.message === 'string' ? error.message.slice(0, 300) : "a refusal without Google's reason";
    throw new ProviderError('Google', res.status, said);
  }
  if (!res.ok) throw new ProviderError('Google', res.status, await providerMessage(res));
  const { permissionLevel } = await providerAnswer('Google', res);
  if (typeof permissionLevel !== 'string') throw new ProviderError('Google', res.status, 'an answer without its data');
  return permissionLevel !== 'siteUnverifiedUser';
}

/** The host a property covers: `sc-domain:example.com` → example.com; a URL prefix → its host. */
export function propertyHost(property: string): string | null {
  if (property.startsWith('sc-domain:')) return property.slice('sc-domain:'.length).toLowerCase() || null;
  try {
    const url = new URL(property);
    return url.protocol === 'https:' || url.protocol === 'http:' ? url.hostname.toLowerCase() : null;
  } catch {
    return null;
  }
}
