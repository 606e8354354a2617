import { describe, expect, it } from 'vitest';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

/** An owner adds an alert in the site page, sees its webhook secret once, pauses it and removes it. */
describe('alerts in a real browser', () => {
  const suite = dashboardSuite();

  it('adds a spike alert with an address and a webhook, pauses, resumes and removes it', { timeout: 120_000 }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Alert workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Watched shop' });
    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByText('No alerts yet.').waitFor();

    const form = page.getByRole('form', { name: 'Add an alert' });
    await form.getByLabel('When').selectOption('traffic_spike');
    await form.getByLabel('By at least (%)').fill('80');
    await form.getByLabel('Compared per').selectOption('hour');
    await form.getByLabel('E-mail addresses').fill('oncall@example.com');
    await form.getByLabel('Webhook URL (optional)').fill('https://hooks.example.com/unseen');
    await form.getByRole('button', { name: 'Add alert' }).click();

    const table = page.getByRole('table', { name: 'Alerts' });
    const rule = 'Visitors up 80% or more (per hour)';
    await table.getByRole('rowheader', { name: rule }).waitFor();
    const row = table.getByRole('row', { name: new RegExp(rule.replace(/[()%]/g, '\\$&')) });
    expect(await row.textContent()).toContain('oncall@example.com (not confirmed yet), webhook hooks.example.com');
    expect(await row.textContent()).toContain('On');
    await expect.poll(() => page.getByText(/The webhook's signing secret, shown this once: whsec_/).count()).toBe(1);
    await t.smtp.waitFor('oncall@example.com', /^Confirm e-mail alerts of Watched shop$/);
    expect(await accessibilityProblems(page)).toEqual([]);

    // A refusal names its field in the form.
    await form.getByLabel('When').selectOption('goal_drop');
    await form.getByLabel('Goal name').fill('Nothing like it');
    await form.getByLabel('E-mail addresses').fill('oncall@example.com');
    await form.getByRole('button', { name: 'Add alert' }).click();
    await form.getByText('No goal named "Nothing like it" on this site').waitFor();

    await page.getByRole('button', { name: `Pause: ${rule}` }).click();
    await expect.poll(() => row.textContent()).toContain('Paused');
    await page.getByRole('button', { name: `Resume: ${rule}` }).click();
    await expect.poll(() => row.textContent()).toContain('On');

    await page.getByRole('button', { name: `Remove the alert: ${rule}` }).click();
    await page.getByRole('button', { name: 'Remove alert' }).click();
    await page.getByText('No alerts yet.').waitFor();
    await context.close();
  });
});
