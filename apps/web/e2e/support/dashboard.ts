// What every dashboard test in a real browser starts from: the service (API and built dashboard) and one
// Chromium for the file, and signing in through the dashboard's own form.
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll } from 'vitest';
import { GOOD_PASSWORD, startTestServer, type TestServer } from '../../../api/test/support/server.ts';
import { launchChromium, requireBuiltDashboard } from './browser.ts';

export interface DashboardSuite {
  /** Set in beforeAll: read them inside tests, not at the top of the describe. */
  t: TestServer;
  browser: Browser;
}

/**
 * Starts the service and a Chromium before the file's tests and stops both after. `env` is read when
 * the service starts (after the file's own beforeAll, which may start stand-ins it points at).
 */
export function dashboardSuite(opts: { env?: () => Record<string, string> } = {}): DashboardSuite {
  const suite = {} as DashboardSuite;
  beforeAll(async () => {
    requireBuiltDashboard();
    suite.t = await startTestServer({ env: opts.env?.() ?? {} });
    suite.browser = await launchChromium();
  });
  afterAll(async () => {
    await suite.browser?.close();
    await suite.t?.close();
  });
  return suite;
}

/** Fills and sends the sign-in form on the page shown (the test password of every test user). */
export async function signInThroughUi(page: Page, email: string): Promise<void> {
  const form = page.locator('form[name="login"]');
  await form.locator('input[name="email"]').fill(email);
  await form.locator('input[name="password"]').fill(GOOD_PASSWORD);
  await form.locator('button[type="submit"]').click();
}

/**
 * A new browser context (1280 wide, 900 high unless told, UTC) signed in as `email` through the dashboard's form, on /sites (where a first sign-in lands).
 * Close the context when done.
 */
export async function signedInPage(suite: DashboardSuite, email: string, timeoutMs = 15_000, height = 900) {
  const context = await suite.browser.newContext({ viewport: { width: 1280, height }, timezoneId: 'UTC' });
  const page = await context.newPage();
  page.setDefaultTimeout(timeoutMs);
  await page.goto(`${suite.t.url}/login`);
  await signInThroughUi(page, email);
  await page.waitForURL(/\/sites$/);
  return { context, page };
}
