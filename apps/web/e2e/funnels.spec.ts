import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { addSessions, emptyRows, insertJourneys } from '../../api/test/support/journeys-fixture.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

const SCREENSHOT = (name: string) => `/tmp/e2e-funnels-${name}.png`;

/** Yesterday in UTC (the test site keeps UTC): a whole day of the default 7. */
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

/**
 * 20 People sessions yesterday, one visitor each, pages 20 s apart and the signup event 1 s after /pricing:
 * 3 go / → /pricing (signup) → /thanks, 7 stop after signing up, 6 after /pricing, 4 after /.
 * The funnel / → /pricing → event signup → /thanks: 20, 16 (80 %, 20 % drop, 20 s), 10 (50 %, 37.5 %
 * drop, 1 s), then 3: fewer than 5, without figures.
 */
function traffic(siteId: string) {
  const rows = emptyRows();
  const signup = { path: '/pricing', events: ['signup'] };
  addSessions(rows, siteId, { day: yesterday, pages: ['/', signup, '/thanks'] }, 3);
  addSessions(rows, siteId, { day: yesterday, pages: ['/', signup] }, 7);
  addSessions(rows, siteId, { day: yesterday, pages: ['/', '/pricing'] }, 6);
  addSessions(rows, siteId, { day: yesterday, pages: ['/'] }, 4);
  return rows;
}

const step = (page: Page, n: number) =>
  page.getByRole('list', { name: 'Steps of Sign-up' }).getByRole('listitem', { name: `Step ${n}`, exact: true });

describe('funnels page in a real browser', () => {
  const suite = dashboardSuite();

  it('adds a funnel (a refused step shown under its input), shows its bars with visitors, conversion and drop-off, and deletes it', {
    timeout: 180_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Funnels workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Shop' });
    await insertJourneys(t.deps.orm, traffic(siteId));
    const { context, page } = await signedInPage(suite, owner.email, 15_000, 1000);

    // From the site's header.
    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByRole('link', { name: 'Funnels', exact: true }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/funnels$`));
    await page.getByRole('heading', { name: 'Shop funnels', level: 1 }).waitFor();
    await page.getByText('No funnels yet.').waitFor();

    // A page step without its leading / is refused by the API, and said under that step's input.
    const form = page.getByRole('form', { name: 'Add a funnel' });
    await form.getByLabel('Name', { exact: true }).fill('Sign-up');
    await form.getByLabel('Step 1 path', { exact: true }).fill('/');
    await form.getByLabel('Step 2 path', { exact: true }).fill('pricing');
    await form.getByRole('button', { name: 'Add funnel' }).click();
    const second = form.getByLabel('Step 2 path', { exact: true });
    await expect.poll(() => second.getAttribute('aria-invalid')).toBe('true');
    expect(await form.locator('.field-error').allTextContents()).toEqual([expect.stringMatching(/^Start a page step with \//)]);
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.name')).toBe('steps[1].match');

    // Fixed, and two more steps: an event, then a page; a fifth added and removed again.
    await second.fill('/pricing');
    await form.getByRole('button', { name: 'Add a step' }).click();
    await form.getByLabel('Step 3 type', { exact: true }).selectOption('event');
    await form.getByLabel('Step 3 event name', { exact: true }).fill('signup');
    await form.getByRole('button', { name: 'Add a step' }).click();
    await form.getByLabel('Step 4 path', { exact: true }).fill('/thanks');
    await form.getByRole('button', { name: 'Add a step' }).click();
    await form.getByRole('button', { name: 'Remove step 5' }).click();
    expect(await form.getByRole('list', { name: 'Steps' }).getByRole('listitem').count()).toBe(4);
    await form.getByRole('button', { name: 'Add funnel' }).click();

    // Its results are shown at once: a bar per step, as long as its visitors against step 1's.
    await page.waitForURL(/[?&]funnel=/);
    const figures = (n: number) => step(page, n).getByTestId('step-figures').textContent();
    await expect.poll(() => figures(1)).toBe('20 visitors · 100%');
    expect(await figures(2)).toBe('16 visitors · 80%');
    expect(await figures(3)).toBe('10 visitors · 50%');
    expect(await figures(4)).toBe('fewer than 5 visitors');
    expect(await step(page, 3).textContent()).toContain('Event signup');
    expect(await step(page, 2).locator('.funnel-between').textContent()).toBe('↓ 20% dropped off · median 20s from step 1');
    expect(await step(page, 3).locator('.funnel-between').textContent()).toBe('↓ 37.5% dropped off · median 1s from step 2');
    expect(await step(page, 4).locator('.funnel-between').textContent()).toBe('↓ fewer than 5 visitors went on from step 3');
    const widths = await page.locator('.funnel-bar').evaluateAll((bars) => bars.map((b) => b.getAttribute('data-width')));
    expect(widths).toEqual(['100.0', '80.0', '50.0', '0.0']);
    const table = page.getByRole('table', { name: 'Funnels' });
    expect(await table.getByRole('row', { name: /Sign-up/ }).textContent()).toContain(
      'Page / → Page /pricing → Event signup → Page /thanks',
    );
    await page.screenshot({ path: SCREENSHOT('results'), fullPage: true });

    // A longer period, kept in the address.
    await page.getByLabel('Period').selectOption('30');
    await page.waitForURL(/[?&]days=30/);
    await page.reload();
    expect(await page.getByLabel('Period').inputValue()).toBe('30');
    await expect.poll(() => figures(2)).toBe('16 visitors · 80%');

    expect(await accessibilityProblems(page)).toEqual([]);

    // The dashboard's filters come along to the funnels: no session began on /pricing, so no one enters.
    await page.goto(`${t.url}/sites/${siteId}/dashboard?where.page=%2Fpricing`);
    await page.getByRole('navigation', { name: 'Site pages' }).getByRole('link', { name: 'Funnels', exact: true }).click();
    await page.waitForURL(/\/funnels\?where\.page=%2Fpricing$/);
    await expect.poll(() => figures(1)).toBe('fewer than 5 visitors');
    const chips = page.getByRole('list', { name: 'Filters' });
    expect(await chips.textContent()).toContain('/pricing');
    // Removing the filter shows every session again.
    await chips.getByRole('button', { name: /^Remove filter/ }).click();
    await expect.poll(() => figures(1)).toBe('20 visitors · 100%');
    expect(page.url()).not.toContain('where.');

    // Deleting asks first.
    await page.getByRole('button', { name: 'Delete funnel Sign-up' }).click();
    await page.getByRole('button', { name: 'Delete funnel', exact: true }).click();
    await page.getByText('No funnels yet.').waitFor();
    expect(await page.getByTestId('funnel-chart').count()).toBe(0);

    await context.close();
  });
});
