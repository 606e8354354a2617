import { describe, expect, it } from 'vitest';
import { givenSettings, parseEnv } from '../../src/core/env.ts';
import { checkProduction } from '../../src/core/production-checks.ts';

/** What production refuses and warns about (docs/configuration.md, "Start-up checks"). */
const check = (vars: Record<string, string>) => checkProduction(parseEnv(vars), givenSettings(vars));

const SAFE = {
  NODE_ENV: 'production',
  APP_SECRET: 'x'.repeat(48),
  BASE_URL: 'https://stats.example.com',
  DATABASE_URL: 'postgres://u:p@db:5432/stats',
  SMTP_URL: 'smtp://mail.example.com:587',
  MAIL_FROM: 'Stats <stats@example.com>',
};

describe('production start-up checks', () => {
  it('a safe production configuration starts with no refusal and no warning', () => {
    expect(check(SAFE)).toEqual({ refusals: [], warnings: [] });
    expect(check({ ...SAFE, TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '1', APP_URL: 'https://app.example.com' })).toEqual({
      refusals: [],
      warnings: [],
    });
  });

  it('development and test start with nothing set, as before', () => {
    expect(check({})).toEqual({ refusals: [], warnings: [] });
    expect(check({ NODE_ENV: 'test', TRUST_PROXY: 'true', APP_URL: 'http://example.com' })).toEqual({
      refusals: [],
      warnings: [],
    });
  });

  it('lists every refusal at once, one line each', () => {
    const { refusals } = check({ NODE_ENV: 'production' });
    expect(refusals).toEqual([
      expect.stringMatching(/^APP_SECRET is not set: /),
      expect.stringMatching(/^BASE_URL is not set: /),
      expect.stringMatching(/^APP_URL is not set \(nor BASE_URL, its default\): /),
    ]);
    for (const line of refusals) expect(line).not.toContain('\n');
  });

  it('refuses public addresses that are not https', () => {
    const { refusals } = check({
      ...SAFE,
      APP_URL: 'http://app.example.com',
      COLLECT_URL: 'http://collect.example.com/collect',
    });
    expect(refusals).toEqual([
      'APP_URL is not https (http://app.example.com): sign-in cookies, e-mail links and the page script must not travel in clear text',
      'COLLECT_URL is not https (http://collect.example.com/collect): sign-in cookies, e-mail links and the page script must not travel in clear text',
    ]);
  });

  it('accepts http on this machine only with ALLOW_HTTP_LOCALHOST=true', () => {
    for (const local of ['http://localhost:8080', 'http://127.0.0.1', 'http://[::1]:8080']) {
      expect(check({ ...SAFE, BASE_URL: local }).refusals).toEqual([
        expect.stringMatching(/^BASE_URL is http on this machine only \(.*\): .*ALLOW_HTTP_LOCALHOST=true/),
      ]);
      expect(check({ ...SAFE, BASE_URL: local, ALLOW_HTTP_LOCALHOST: 'true' }).refusals).toEqual([]);
    }
    // Another host stays refused whatever the opt-out says.
    expect(check({ ...SAFE, BASE_URL: 'http://10.0.0.5', ALLOW_HTTP_LOCALHOST: 'true' }).refusals).toHaveLength(1);
  });

  it('refuses TRUST_PROXY=true unless TRUST_PROXY_HOPS is set explicitly', () => {
    expect(check({ ...SAFE, TRUST_PROXY: 'true' }).refusals).toEqual([
      expect.stringMatching(/^TRUST_PROXY=true but TRUST_PROXY_HOPS is not set: /),
    ]);
    expect(check({ ...SAFE, TRUST_PROXY: 'true', TRUST_PROXY_HOPS: '2' }).refusals).toEqual([]);
  });

  it("refuses plain http to another machine for the APIs that carry this service's credentials", () => {
    const { refusals } = check({
      ...SAFE,
      STRIPE_API_URL: 'http://stripe.example.com',
      EDGE_API_URL: 'http://127.0.0.1:9000/client/v4',
      SEARCH_BING_API_URL: 'http://bing.example.com/json',
    });
    expect(refusals).toEqual([
      expect.stringMatching(/^STRIPE_API_URL is plain http to another machine \(http:\/\/stripe.example.com\): /),
      expect.stringMatching(/^SEARCH_BING_API_URL is plain http to another machine /),
    ]);
  });

  it('warns about the default sender, mail to the outbox, the embedded database and plain-http S3', () => {
    const { refusals, warnings } = check({
      NODE_ENV: 'production',
      APP_SECRET: SAFE.APP_SECRET,
      BASE_URL: SAFE.BASE_URL,
      EXPORT_S3_BUCKET: 'exports',
      EXPORT_S3_ENDPOINT: 'http://minio.internal:9000',
    });
    expect(refusals).toEqual([]);
    expect(warnings).toEqual([
      expect.stringMatching(/^MAIL_FROM is Unseen Stats <no-reply@localhost>: /),
      expect.stringMatching(/^SMTP_URL is not set: /),
      expect.stringMatching(/^DATABASE_URL is not set: /),
      expect.stringMatching(/^EXPORT_S3_ENDPOINT is plain http \(http:\/\/minio.internal:9000\): /),
    ]);
  });
});
