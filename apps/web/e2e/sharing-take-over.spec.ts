import { Membership, User } from '@us/db';
import { describe, expect, it } from 'vitest';
import { hashPassword } from '../../api/src/core/security/passwords.ts';
import { callerFor } from '../../api/test/support/caller.ts';
import { answerConfirmation } from '../../api/test/support/report-optin.ts';
import { createToken, createUser, GOOD_PASSWORD, uniqueEmail } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { accessibilityProblems } from './support/axe.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

/**
 * A member who made a shared link and an e-mail report is removed: the owner is told, sees both stopped
 * on the site page, and takes them over; the same link opens again and the report can be sent again.
 */
describe('dashboard: taking over what a member who left shared', () => {
  const suite = dashboardSuite();

  it('shows the link and the report stopped after the member is removed, and an owner takes them over', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Take-over workspace', plan: 'Business' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Team shop' });
    const em = t.deps.orm.em.fork();
    const memberEmail = uniqueEmail('leaving-member');
    const member = em.create(User, {
      email: memberEmail,
      passwordHash: await hashPassword(GOOD_PASSWORD),
      emailVerifiedAt: new Date(),
    });
    em.create(Membership, { workspace: owner.workspace.id, user: member, role: 'member' });
    await em.flush();
    const asMember = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: member.id,
        workspaceId: owner.workspace.id,
        scopes: ['analytics:read', 'sites:read', 'sites:write'],
      }),
    );
    const { link } = await asMember.shares.create({ id: siteId, label: 'Board' });
    await asMember.reports.add({ id: siteId, address: 'board@example.com', frequency: 'weekly' });
    await answerConfirmation(t, 'board@example.com');

    // The owner removes the member; the confirmation says what happens to what they shared.
    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/members`);
    const row = page.getByRole('row', { name: new RegExp(memberEmail) });
    await row.getByRole('button', { name: `Remove ${memberEmail}` }).click();
    await row.getByText('the shared links and e-mail reports they made stop until an owner takes them over').waitFor();
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await expect.poll(() => page.getByRole('row', { name: new RegExp(memberEmail) }).count()).toBe(0);

    // The link no longer opens for whoever holds it.
    const guest = await suite.browser.newContext({ viewport: { width: 1280, height: 900 }, timezoneId: 'UTC' });
    const viewer = await guest.newPage();
    viewer.setDefaultTimeout(15_000);
    await viewer.goto(link.url);
    await viewer.getByText('This shared link does not exist or was revoked').waitFor();

    // The site page shows both stopped; the report cannot be sent now.
    await page.goto(`${t.url}/sites/${siteId}`);
    const links = page.getByRole('table', { name: 'Shared links' });
    const reports = page.getByRole('table', { name: 'E-mail reports' });
    await links.getByText('Stopped: made by a member who left').waitFor();
    await reports.getByText('Stopped: added by a member who left').waitFor();
    const sendNow = page.getByRole('button', { name: 'Send now: the weekly report to board@example.com' });
    expect(await sendNow.isDisabled()).toBe(true);
    expect(await accessibilityProblems(page)).toEqual([]);

    // The owner takes them over: the same link opens again, the report can be sent.
    await page.getByRole('button', { name: 'Take over the link Board' }).click();
    await links.getByText('Opens', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Take over the weekly report to board@example.com' }).click();
    await reports.getByText('Confirmed', { exact: true }).waitFor();
    await expect.poll(() => sendNow.isDisabled()).toBe(false);
    await viewer.goto(link.url);
    await viewer.getByRole('heading', { name: 'Team shop dashboard' }).waitFor();
    await guest.close();
    await context.close();
  });
});
