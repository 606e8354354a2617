import { Secret, TOTP } from 'otpauth';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { GOOD_PASSWORD, uniqueEmail } from '../../api/test/support/server.ts';
import { linkToken } from '../../api/test/support/smtp.ts';
import { dashboardSuite } from './support/dashboard.ts';

const SCREENSHOT = '/tmp/e2e-account.png';
const UI_TIMEOUT = 15_000;

/** The path and query of the first `{APP_URL}/<page>?token=…` link in the mail's text. */
function linkPath(text: string, page: string): string {
  const link = new RegExp(`https?://[^\\s"<>]+/${page}\\?token=[A-Za-z0-9_%-]+`).exec(text)?.[0];
  if (!link) throw new Error(`no /${page} link in the e-mail`);
  const url = new URL(link);
  return `${url.pathname}${url.search}`;
}

/** Fills a form's fields by their `name` (the API's field names) and submits it. */
async function submitForm(page: Page, form: string, values: Record<string, string>) {
  const f = page.locator(`form[name="${form}"]`);
  for (const [name, value] of Object.entries(values)) await f.locator(`input[name="${name}"]`).fill(value);
  await f.locator('button[type="submit"]').click();
}

describe('dashboard: sign-up to two-factor sign-in in a real browser', () => {
  const suite = dashboardSuite();

  it('signs up, confirms, signs in, turns two-factor on and signs in with a code', { timeout: 120_000 }, async () => {
    const { t, browser } = suite;
    const email = uniqueEmail('e2e');
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);

    // Sign-up: a too-short password is refused by the server, shown under the password input.
    await page.goto(`${t.url}/signup`);
    await submitForm(page, 'signup', { email, password: 'short' });
    const passwordError = page.locator('#signup-password-error');
    await expect.poll(() => passwordError.textContent(), { timeout: UI_TIMEOUT }).toMatch(/at least 10 characters/);
    const passwordInput = page.locator('form[name="signup"] input[name="password"]');
    expect(await passwordInput.getAttribute('aria-invalid')).toBe('true');
    expect(await passwordInput.getAttribute('aria-describedby')).toContain('signup-password-error');

    await submitForm(page, 'signup', { email, password: GOOD_PASSWORD });
    await page.getByRole('heading', { name: 'Check your inbox' }).waitFor();

    // The confirmation link from the captured e-mail, opened on the test server.
    const mail = await t.smtp.waitFor(email, /Confirm/, 10_000);
    const verifyPath = linkPath(mail.text, 'verify');
    expect(new URL(verifyPath, t.url).searchParams.get('token')).toBe(linkToken(mail, 'verify'));
    await page.goto(`${t.url}${verifyPath}`);
    await submitForm(page, 'verify', { password: GOOD_PASSWORD });

    // Lands on sign-in with a notice; sign in with the password.
    await page.waitForURL(/\/login$/);
    await page.getByText('Your address is confirmed').waitFor();
    // The same link a second time: used. The page says so (the API answers 200 verified false) and stays.
    await page.goto(`${t.url}${verifyPath}`);
    await submitForm(page, 'verify', { password: GOOD_PASSWORD });
    await page.getByText('This confirmation link is invalid, used or expired').waitFor();
    expect(new URL(page.url()).pathname).toBe('/verify');
    await page.goto(`${t.url}/login`);
    await submitForm(page, 'login', { email, password: GOOD_PASSWORD });
    // Signing in lands on the sites (no dashboard opened yet); the account is a click away.
    await page.waitForURL(/\/sites$/);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Account' }).click();
    await page.getByRole('heading', { name: 'Your account' }).waitFor();
    await page.getByText(email, { exact: true }).first().waitFor();
    expect(await page.locator('#two-factor-status').textContent()).toBe('Off');
    // The sessions list comes with its own request, after the account's details (a loaded CI run counted it empty).
    await page.locator('.session-current').first().waitFor();
    expect(await page.locator('.session-current').count()).toBe(1);

    // Two-factor: enrol with the password, read the secret shown, confirm a current code.
    await submitForm(page, 'twoFactorEnroll', { password: GOOD_PASSWORD });
    const secretText = await page.locator('#totp-secret').textContent();
    const secret = (secretText ?? '').replace(/\s/g, '');
    expect(secret).toMatch(/^[A-Z2-7]{16,}$/);
    await page.getByRole('img', { name: /QR code/ }).waitFor();
    const totp = new TOTP({ secret: Secret.fromBase32(secret) });
    await submitForm(page, 'twoFactorConfirm', { code: totp.generate() });
    await expect.poll(() => page.locator('#two-factor-status').textContent(), { timeout: UI_TIMEOUT }).toBe('On');

    // Sign out, then sign in again: the password leads to the code step.
    await page.getByRole('banner').getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/login$/);
    await page.getByText('You are signed out.').waitFor();
    await submitForm(page, 'login', { email, password: GOOD_PASSWORD });
    await page.getByRole('heading', { name: 'Two-factor sign-in' }).waitFor();
    // A code is accepted once: the next step's code is fresh and within the server's ±1 step window.
    await submitForm(page, 'loginTwoFactor', { code: totp.generate({ timestamp: Date.now() + 30_000 }) });

    await page.waitForURL(/\/sites$/);
    await page.getByRole('navigation', { name: 'Dashboard' }).getByRole('link', { name: 'Account' }).click();
    await expect.poll(() => page.locator('#two-factor-status').textContent(), { timeout: UI_TIMEOUT }).toBe('On');
    await page.getByText('Two-factor sign-in is on').waitFor();
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    await context.close();
  });
});
