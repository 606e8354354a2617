import { describe, expect, it } from 'vitest';
import { nodeEnv, workerName, wranglerToml } from '../src/pages/sites/protection/edgeInstall.ts';

const values = {
  siteName: 'Corner Shop',
  siteKey: 'pk_abcdefghijklmnopqrstuvwxyz',
  collectUrl: 'https://in.collect.example/collect',
  version: '1.0.0',
  newSecret: null,
};

describe('the edge install card’s files', () => {
  it('names the worker as Cloudflare accepts: lower-case letters, digits and dashes', () => {
    expect(workerName('Corner Shop')).toBe('corner-shop-gate');
    expect(workerName('  Café & Bar — Zürich!  ')).toBe('caf-bar-z-rich-gate');
    expect(workerName('日本語')).toBe('site-gate');
    expect(workerName('a'.repeat(80))).toBe(`${'a'.repeat(40)}-gate`);
  });

  it('keeps the secret out of wrangler.toml, and fills .env only with a secret made a moment ago', () => {
    expect(wranglerToml(values)).not.toMatch(/SVC_SECRET\s*=/);
    expect(nodeEnv(values)).toContain('SVC_SECRET=<a server secret of this site: sk_live_…>');
    expect(nodeEnv({ ...values, newSecret: 'sk_live_new' })).toContain('SVC_SECRET=sk_live_new\n');
  });
});
