import { describe, expect, it } from 'vitest';
import { addSessions, emptyRows, insertJourneys } from '../../api/test/support/journeys-fixture.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

/** Yesterday in UTC (the test site keeps UTC): a day of the default 7. */
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

describe('segments, annotations and what changed on the dashboard in a real browser', () => {
  const suite = dashboardSuite();

  it('marks a day on the chart, says what changed, saves the filters as a segment and applies it again from the list', {
    timeout: 180_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Notes workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Shop' });
    const rows = emptyRows();
    addSessions(rows, siteId, { day: yesterday, pages: ['/', '/pricing'] }, 6);
    addSessions(rows, siteId, { day: yesterday, pages: ['/blog'] }, 4);
    await insertJourneys(t.deps.orm, rows);
    const { context, page } = await signedInPage(suite, owner.email, 15_000, 1000);
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);

    // An annotation for yesterday: listed under the chart and flagged on it, its text in the day's figures.
    const form = page.getByRole('form', { name: 'Add an annotation' });
    await form.getByLabel('Day', { exact: true }).fill(yesterday);
    await form.getByLabel('Text', { exact: true }).fill('Deployed the new pricing page');
    await form.getByRole('button', { name: 'Add annotation' }).click();
    const notes = page.getByRole('list', { name: 'Annotations of this period' });
    await expect.poll(() => notes.textContent()).toContain('Deployed the new pricing page');
    await expect.poll(() => page.locator(`.dash-chart-marks [data-mark="${yesterday}"]`).count()).toBe(1);
    await expect
      .poll(() => page.locator(`.dash-chart-day[data-day="${yesterday}"] title`).textContent())
      .toContain('Noted: Deployed the new pricing page');
    // What changed since the week before: all ten visits are new, six of them began on / (every visit came from
    // Germany: that explains nothing).
    await page.getByRole('button', { name: 'Explain the change' }).click();
    const changes = page.getByTestId('changes');
    await expect.poll(() => changes.textContent()).toContain('10 visits');
    await expect
      .poll(() => changes.getByRole('list', { name: 'What moved most' }).getByRole('listitem').first().textContent())
      .toMatch(/^\+6 visits starting on \/ · 60(\.0)?% of the change$/);

    // Filters in force can be saved as a segment; it is then the one chosen.
    await page.goto(`${t.url}/sites/${siteId}/dashboard?where.page=%2Fblog`);
    // The filter is in force (shown in the Filters list) before the segment is saved with it.
    await expect.poll(() => page.getByRole('list', { name: 'Filters' }).textContent()).toContain('/blog');
    const segments = page.getByRole('region', { name: 'Segments' });
    await segments.getByLabel('Segment name').fill('Blog readers');
    await segments.getByRole('button', { name: 'Save as segment' }).click();
    const pick = segments.getByLabel('Segment', { exact: true });
    // Saved, the list is asked again and the new segment shown as chosen: on a loaded CI machine past 10 s once.
    await expect.poll(async () => pick.locator('option:checked').textContent(), { timeout: 30_000 }).toBe('Blog readers');

    // Cleared, then applied again from the list: its filter is back in the address.
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await expect.poll(async () => pick.locator('option:checked').textContent()).toBe('All visitors');
    await pick.selectOption({ label: 'Blog readers' });
    await page.waitForURL(/where\.page=%2Fblog/);
    expect(await page.getByRole('list', { name: 'Filters' }).textContent()).toContain('/blog');

    expect(await accessibilityProblems(page)).toEqual([]);

    // Deleting the segment keeps its filters in force; the annotation goes after asking.
    await segments.getByRole('button', { name: 'Delete segment Blog readers' }).click();
    await segments.getByRole('button', { name: 'Delete segment', exact: true }).click();
    await segments.getByRole('button', { name: 'Save as segment' }).waitFor();
    expect(page.url()).toContain('where.page=%2Fblog');
    await page.goto(`${t.url}/sites/${siteId}/dashboard`);
    await page.getByRole('button', { name: 'Delete annotation Deployed the new pricing page' }).click();
    await page.getByRole('button', { name: 'Delete annotation', exact: true }).click();
    await page.getByText('No annotations in this period.').waitFor();
    await expect.poll(() => page.locator('.dash-chart-marks [data-mark]').count()).toBe(0);

    await context.close();
  });
});
