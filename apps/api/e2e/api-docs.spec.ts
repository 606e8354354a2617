import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium } from '../../web/e2e/support/browser.ts';
import { recordPageProblems } from '../../web/e2e/support/page-problems.ts';
import { startTestServer, type TestServer } from '../test/support/server.ts';

/** GET /v1/docs in a real Chromium: the reference renders from /v1/openapi.json under its CSP, quietly. */
describe('the API reference page in a real browser', () => {
  let t: TestServer;
  let browser: Browser;
  beforeAll(async () => {
    t = await startTestServer();
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
  });

  // The reference's bundle is large (docs/api/README.md): a loaded machine takes a while to parse it.
  it('renders the operations, opens one, and meets no console error or CSP violation', { timeout: 90_000 }, async () => {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const problems = await recordPageProblems(context);
    const offsite: string[] = [];
    context.on('request', (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) offsite.push(r.url());
    });
    try {
      const page = await context.newPage();
      page.setDefaultTimeout(60_000);
      await page.goto(`${t.url}/v1/docs`);
      // An operation's summary from the OpenAPI document, listed in the sidebar; opening it shows its heading.
      const operation = 'Create an account and its workspace';
      await page.getByText(operation).first().click();
      await page.getByRole('heading', { name: operation }).first().waitFor();
      await expect.poll(() => new URL(page.url()).hash).toContain('signup');
      expect(problems.cspViolations).toEqual([]);
      expect(problems.pageErrors).toEqual([]);
      expect(problems.consoleErrors).toEqual([]);
      expect(offsite).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
