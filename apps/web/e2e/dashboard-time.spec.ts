import { insertRows } from '@us/db';
import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';
import { dayAgo, visit } from './support/visits.ts';

const UI_TIMEOUT = 15_000;

describe('dashboard: hours, intervals, stepping and keyboard shortcuts', () => {
  const suite = dashboardSuite();

  it('today is hourly; the interval, ← → and T/W/C keys change the series and the address', { timeout: 180_000 }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Time workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Clock shop' });
    // A pageview today (a minute ago, or at midnight just after it), and some on earlier days.
    const todayAt = new Date(Math.max(Date.parse(`${dayAgo(0)}T00:00:00Z`), Date.now() - 60_000));
    const earlier = [1, 3, 10, 35, 70].flatMap((n) =>
      visit(siteId, n, ['/', '/a'], { referrerHost: null, country: 'DE', device: 'desktop' }),
    );
    const today = visit(siteId, 0, ['/'], { referrerHost: null, country: 'DE', device: 'desktop' }).map((row) => ({
      ...row,
      at: todayAt,
    }));
    await insertRows(t.deps.orm, 'pageviews', [...earlier, ...today]);

    const { context, page } = await signedInPage(suite, owner.email, UI_TIMEOUT);
    const base = `${t.url}/sites/${siteId}/dashboard`;
    // Each step waits for the figures of the last (a workspace answers 8 stats questions at once).
    const settled = () =>
      expect.poll(() => page.locator('.dash-body').getAttribute('aria-busy'), { timeout: UI_TIMEOUT }).toBe('false');
    const columns = (interval: string) =>
      page.getByRole('img', { name: new RegExp(`^Sessions and pageviews per ${interval}`) }).locator('g.dash-chart-day');

    // Today: 24 hours, and only the intervals that fit a day are offered.
    await page.goto(`${base}?range=today`);
    await settled();
    await expect.poll(() => columns('hour').count(), { timeout: UI_TIMEOUT }).toBe(24);
    expect(await page.getByLabel('Interval').locator('option').allTextContents()).toEqual(['Hour', 'Day']);
    expect(await page.getByRole('button', { name: 'Next period' }).isDisabled()).toBe(true);

    // The interval picker: one day as one column, kept in the address.
    await page.getByLabel('Interval').selectOption('day');
    await page.waitForURL(/[?&]interval=day/);
    await settled();
    await expect.poll(() => columns('day').count(), { timeout: UI_TIMEOUT }).toBe(1);

    // W: the last 7 days, by day (the chosen interval fits).
    await page.locator('body').press('w');
    await page.waitForURL((url) => !url.searchParams.has('range'));
    await settled();
    await expect.poll(() => columns('day').count(), { timeout: UI_TIMEOUT }).toBe(7);

    // 30 days by week: 5 or 6 ISO weeks.
    await page.getByLabel('Range').selectOption('30d');
    await settled();
    expect(await page.getByLabel('Interval').locator('option').allTextContents()).toEqual(['Day', 'Week']);
    await page.getByLabel('Interval').selectOption('week');
    await page.waitForURL(/[?&]interval=week/);
    await settled();
    await expect.poll(() => columns('week').count(), { timeout: UI_TIMEOUT }).toBeGreaterThanOrEqual(5);
    expect(await columns('week').count()).toBeLessThanOrEqual(6);

    // ← steps back by 30 days, → forward again, not past today.
    await page.locator('body').press('ArrowLeft');
    await page.waitForURL(new RegExp(`range=custom&from=${dayAgo(59)}&to=${dayAgo(30)}`));
    await settled();
    await page.getByRole('button', { name: 'Next period' }).click();
    await page.waitForURL(new RegExp(`from=${dayAgo(29)}&to=${dayAgo(0)}`));
    await settled();
    expect(await page.getByRole('button', { name: 'Next period' }).isDisabled()).toBe(true);

    // Keys typed in a field are not shortcuts: W in a day field leaves the custom range, ← then steps it.
    await page.locator('form[name="customRange"] input[name="from"]').press('w');
    await page.getByRole('button', { name: 'Previous period' }).click();
    await page.waitForURL(new RegExp(`from=${dayAgo(59)}&to=${dayAgo(30)}`));

    // T: today again, hourly (a week does not fit a day).
    await page.locator('body').press('t');
    await page.waitForURL(/[?&]range=today/);
    await settled();
    await expect.poll(() => columns('hour').count(), { timeout: UI_TIMEOUT }).toBe(24);

    // C: compare off and on.
    await page.locator('body').press('c');
    await page.waitForURL(/[?&]compare=0/);
    await settled();
    expect(await page.getByLabel(/^Compare with the/).isChecked()).toBe(false);
    await page.locator('body').press('c');
    await page.waitForURL((url) => !url.searchParams.has('compare'));

    // Compare with a chosen earlier range: the 7 days 10 days back against the week before last.
    await page.getByLabel('Range').selectOption('7d');
    await settled();
    await page.getByRole('button', { name: 'Compare with…' }).click();
    const form = page.locator('form[name="compareRange"]');
    await form.locator('input[name="compareFrom"]').fill(dayAgo(40));
    await form.locator('input[name="compareTo"]').fill(dayAgo(34));
    await form.getByRole('button', { name: 'Compare', exact: true }).click();
    await page.waitForURL(new RegExp(`compareFrom=${dayAgo(40)}&compareTo=${dayAgo(34)}`));
    await expect.poll(() => page.locator('.dash-legend-previous').textContent()).toMatch(/Previous period/);
    expect(await page.getByLabel('Compare with the chosen range').isChecked()).toBe(true);

    await settled();
    // ?: the list of shortcuts; then axe on the page with every new control shown.
    await page.locator('body').press('?');
    await page.getByText('Clear filters').waitFor();
    // (Figures fade while loading: axe reads their colours once they are back.)
    await expect
      .poll(
        () =>
          page
            .locator('.dash-measures')
            .evaluate(
              (el) =>
                (globalThis as unknown as { getComputedStyle: (e: unknown) => { opacity: string } }).getComputedStyle(el).opacity,
            ),
        { timeout: UI_TIMEOUT },
      )
      .toBe('1');
    expect(await accessibilityProblems(page)).toEqual([]);
    await context.close();
  });
});
