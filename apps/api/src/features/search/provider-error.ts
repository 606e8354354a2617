// A provider's refusal or failure, with what it said (shown on the connection, never with credentials).
export class ProviderError extends Error {
  constructor(
    readonly provider: 'Google' | 'Bing',
    readonly status: number,
    message: string,
  ) {
    super(`${provider} answered ${status || 'nothing'}: ${message}`);
  }
}

/** A provider call with a time limit; a network failure or timeout is a ProviderError with status 0. */
export async function providerFetch(provider: 'Google' | 'Bing', url: string, init: RequestInit = {}): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: 'error', signal: AbortSignal.timeout(10_000) });
  } catch (e) {
    throw new ProviderError(provider, 0, (e as Error).name === 'TimeoutError' ? 'no answer within 10 s' : 'could not be reached');
  }
}

/**
 * A good (2xx) answer's JSON object. A body that cannot be read — cut off by the time limit or a dropped
 * connection, truncated, not JSON, not an object — is a ProviderError, never an answer of nothing: taken as
 * one, it stored a week of 0 pages over the true count, or stopped a delegated connection as access lost.
 */
export async function providerAnswer(provider: 'Google' | 'Bing', res: Response): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    body = await res.json();
  } catch (e) {
    const name = (e as Error | undefined)?.name;
    const cut = name === 'TimeoutError' || name === 'AbortError';
    throw new ProviderError(
      provider,
      res.status,
      cut ? 'an answer cut off (not complete within 10 s)' : 'an answer without its data',
    );
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) {
    throw new ProviderError(provider, res.status, 'an answer without its data');
  }
  return body as Record<string, unknown>;
}

/** The provider's own words from an error body, cut short. */
export async function providerMessage(res: Response): Promise<string> {
  const text = (await res.text().catch(() => '')).slice(0, 2000);
  try {
    const body = JSON.parse(text) as Record<string, unknown>;
    const err = body.error as Record<string, unknown> | string | undefined;
    const said =
      (typeof err === 'object' && err ? err.message : undefined) ?? body.error_description ?? body.Message ?? err ?? text;
    return String(said).slice(0, 300);
  } catch {
    return text.slice(0, 300) || res.statusText;
  }
}
