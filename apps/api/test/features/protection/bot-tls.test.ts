import { describe, expect, it } from 'vitest';
import { isPageRequest } from '../../../src/faces/collect/behaviour-feed.ts';
import { claimsModernBrowser, tlsMismatch, tlsOfHeader, tlsSummary, tlsText } from '../../../src/features/protection/tls.ts';

const CHROME = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const SAFARI =
  'Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1';
const OLD_CHROME = 'Mozilla/5.0 (Windows NT 6.1) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/49.0.2623.112 Safari/537.36';

describe('the TLS summary', () => {
  it.each([
    ['TLSv1.3', 'modern', 'TLSv1.3 modern'],
    ['tlsv1.2', undefined, 'TLSv1.2'],
    ['TLS 1.0', 'LEGACY', 'TLSv1.0 legacy'],
    ['TLSv1', 'non-browser', 'TLSv1.0 non-browser'],
    ['SSLv3', '', 'SSLv3'],
    [undefined, 'modern', 'modern'],
    ['JA3=771,4865', 'ja4_t13d1516h2', 'unknown'],
    ['TLSv1.4', undefined, null],
    // The edge SDK's connection classes: only a legacy cipher or an old protocol says anything of the client.
    ['TLSv1.3', 'tls1.3', 'TLSv1.3'],
    ['TLSv1.2', 'tls1.2-legacy', 'TLSv1.2 legacy'],
    ['TLSv1.0', 'tls-old', 'TLSv1.0 legacy'],
    [undefined, 'none', null],
    [undefined, undefined, null],
  ])('version %j, class %j → %j (closed lists: no fingerprint is stored)', (version, cls, text) => {
    expect(tlsText(tlsSummary(version, cls))).toBe(text);
  });

  it('reads the proxy header x-svc-client-tls: version, then class', () => {
    expect(tlsOfHeader('TLSv1.3 modern')).toEqual({ version: 'TLSv1.3', cls: 'modern' });
    expect(tlsOfHeader('TLSv1.2; legacy')).toEqual({ version: 'TLSv1.2', cls: 'legacy' });
    expect(tlsOfHeader('non-browser')).toEqual({ version: null, cls: 'non-browser' });
    expect(tlsOfHeader('')).toEqual({ version: null, cls: null });
    expect(tlsOfHeader(`t13d1516h2_${'a'.repeat(5000)}`)).toEqual({ version: null, cls: 'unknown' });
  });

  it('tls-mismatch: only a user agent claiming a modern browser is held to a browser’s TLS', () => {
    expect(claimsModernBrowser(CHROME)).toBe(true);
    expect(claimsModernBrowser(SAFARI)).toBe(true);
    expect(claimsModernBrowser(OLD_CHROME)).toBe(false);
    expect(claimsModernBrowser('curl/8.5.0')).toBe(false);
    expect(tlsMismatch(CHROME, tlsSummary('TLSv1.1', undefined))).toBe(true);
    expect(tlsMismatch(SAFARI, tlsSummary('TLSv1.3', 'non-browser'))).toBe(true);
    expect(tlsMismatch(CHROME, tlsSummary('TLSv1.3', 'legacy'))).toBe(true);
    expect(tlsMismatch(CHROME, tlsSummary('TLSv1.2', 'modern'))).toBe(false);
    expect(tlsMismatch(CHROME, tlsSummary(undefined, 'unknown'))).toBe(false);
    expect(tlsMismatch(OLD_CHROME, tlsSummary('TLSv1.0', undefined))).toBe(false);
    expect(tlsMismatch('curl/8.5.0', tlsSummary('TLSv1.0', 'non-browser'))).toBe(false);
  });
});

describe('page requests (behaviour memory counts pages, not assets)', () => {
  const rec = (path: string, extra: Partial<Parameters<typeof isPageRequest>[0]> = {}) => ({
    method: 'GET',
    status: 200,
    path,
    ...extra,
  });
  it.each([
    ['/', true],
    ['/pricing', true],
    ['/blog/2026/hello-world', true],
    ['/index.html', true],
    ['/shop/cart.php', true],
    ['/app.js', false],
    ['/img/logo.png', false],
    ['/robots.txt', false],
    ['/_us/pass', false],
  ])('%s → %s', (path, page) => {
    expect(isPageRequest(rec(path))).toBe(page);
  });
  it('only a successful GET, unless the sender says', () => {
    expect(isPageRequest(rec('/login', { method: 'POST' }))).toBe(false);
    expect(isPageRequest(rec('/gone', { status: 404 }))).toBe(false);
    expect(isPageRequest(rec('/api/items', { html: false }))).toBe(false);
    expect(isPageRequest(rec('/feed.xml', { html: true }))).toBe(true);
  });
});
