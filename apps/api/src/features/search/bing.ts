// Bing Webmaster Tools (the secondary provider): API-key calls to its JSON API at SEARCH_BING_API_URL
// (answers wrapped in `d`). The key is sent as the `apikey` query parameter, as the API documents.
import { ProviderError, providerAnswer, providerFetch, providerMessage } from './provider-error.ts';

/** One call of the JSON API: its `d`, or a ProviderError with Bing's own words. */
export async function bingCall<T>(
  apiUrl: string,
  method: string,
  apiKey: string,
  params: Record<string, string> = {},
): Promise<T> {
  const url = new URL(`${apiUrl}/${method}`);
  url.searchParams.set('apikey', apiKey);
  for (const [k, v] of Object.entries(params)) url.searchParams.set(k, v);
  const res = await providerFetch('Bing', url.toString());
  if (!res.ok) throw new ProviderError('Bing', res.status, await providerMessage(res));
  const body = (await providerAnswer('Bing', res)) as { d?: T };
  if (body.d === undefined) throw new ProviderError('Bing', res.status, 'an answer without its data');
  return body.d as T;
}

/** The sites the key's account has, with whether each is verified. */
export async function userSites(apiUrl: string, apiKey: string): Promise<{ url: string; verified: boolean }[]> {
  const sites = await bingCall<{ Url?: unknown; IsVerified?: unknown }[]>(apiUrl, 'GetUserSites', apiKey);
  return (Array.isArray(sites) ? sites : []).map((s) => ({ url: String(s.Url ?? ''), verified: s.IsVerified === true }));
}

/** A site URL compared as Bing lists it: lower-case scheme and host, one trailing slash. */
export const sameSite = (a: string, b: string) => {
  const norm = (u: string) => {
    try {
      const url = new URL(u);
      return `${url.protocol}//${url.host}${url.pathname.replace(/\/*$/, '/')}`.toLowerCase();
    } catch {
      return u.toLowerCase();
    }
  };
  return norm(a) === norm(b);
};
