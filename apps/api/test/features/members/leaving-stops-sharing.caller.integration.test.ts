import { Membership, User } from '@us/db';
import type { Role } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../../src/analytics/range.ts';
import { hashPassword } from '../../../src/core/security/passwords.ts';
import { runEmailReports } from '../../../src/features/reports/reports-job.ts';
import { callerFor, problemOf } from '../../support/caller.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import {
  createToken,
  createUser,
  GOOD_PASSWORD,
  signIn,
  startTestServer,
  type TestServer,
  uniqueEmail,
} from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/**
 * Shared links and e-mail reports a member made stop when that member leaves the workspace (removed,
 * leaving themselves, or their account deleted), until an owner takes them over: then the same link
 * opens again and the report is sent again.
 */

const tokenOf = (url: string) => url.split('/share/')[1] as string;
const UNKNOWN_LINK = 'This shared link does not exist or was revoked: ask whoever shared it for a new one';

describe('a member leaves: their links and reports stop until an owner takes them over', () => {
  let t: TestServer;
  let workspaceId: string;
  let siteId: string;
  let owner: ReturnType<typeof callerFor>;
  let admin: ReturnType<typeof callerFor>;
  const anonymous = () => callerFor(t.deps, { anonymous: true });

  /** A new person of the workspace with `role`, signed in (their session) and with a sharing token. */
  async function colleague(role: Role) {
    // Of this workspace only, so it is the one they act in.
    const em = t.deps.orm.em.fork();
    const email = uniqueEmail(`leaver-${role}`);
    const user = em.create(User, { email, passwordHash: await hashPassword(GOOD_PASSWORD), emailVerifiedAt: new Date() });
    em.create(Membership, { workspace: workspaceId, user, role });
    await em.flush();
    const session = callerFor(t.deps, { sessionCookie: (await signIn(t, email)).replace(/^us_session=/, '') });
    const token = await createToken(t.deps, {
      userId: user.id,
      workspaceId,
      scopes: ['analytics:read', 'sites:read', 'sites:write'],
    });
    return { user, session, token: callerFor(t.deps, token) };
  }

  /** A report of the colleague's, confirmed by its address and due now: its last recorded week is three weeks back. */
  async function dueReport(maker: ReturnType<typeof callerFor>, address: string) {
    const { report } = await maker.reports.add({ id: siteId, address, frequency: 'weekly' });
    await answerConfirmation(t, address);
    const twoWeeksBack = addDays(localToday('UTC'), -21);
    await t.deps.orm.em.fork().execute('update email_reports set last_period_start = ? where id = ?', [twoWeeksBack, report.id]);
    return report;
  }

  const runReports = () => runEmailReports(t.deps.orm, t.deps, { siteIds: [siteId], wait: true });
  const reportsTo = (address: string) =>
    t.smtp.mails.filter((m) => m.to.includes(address) && /^Weekly report for /.test(m.subject)).length;

  beforeAll(async () => {
    t = await startTestServer();
    const o = await createUser(t.deps, { plan: 'Business' });
    workspaceId = o.workspace.id;
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name: 'Team site' })).siteId;
    owner = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: o.user.id,
        workspaceId,
        scopes: ['analytics:read', 'sites:read', 'sites:write', 'members:read', 'members:write', 'account:admin'],
      }),
    );
    admin = (await colleague('admin')).session;
  });
  afterAll(() => t.close());

  it('removed by an owner: the link no longer opens (as an unknown one), open views end, the report is not sent', async () => {
    const m = await colleague('member');
    const { link } = await m.session.shares.create({ id: siteId, label: 'Made by a leaver' });
    const { view } = await anonymous().shares.open({ token: tokenOf(link.url) });
    const address = uniqueEmail('removed-report');
    const report = await dueReport(m.session, address);

    await owner.members.remove({ userId: m.user.id });

    expect(await problemOf(anonymous().shares.open({ token: tokenOf(link.url) }))).toMatchObject({
      status: 404,
      title: UNKNOWN_LINK,
    });
    expect((await problemOf(callerFor(t.deps, { shareView: view }).stats.summary({ id: siteId, days: 7 }))).status).toBe(401);
    expect((await owner.shares.list({ id: siteId })).links.find((l) => l.id === link.id)).toMatchObject({
      creatorLeft: true,
    });
    expect((await owner.reports.list({ id: siteId })).reports.find((r) => r.id === report.id)).toMatchObject({
      creatorLeft: true,
    });
    const run = await runReports();
    expect(run.sent).toBe(0);
    expect(reportsTo(address)).toBe(0);
    // Send now is no way around it.
    expect(await problemOf(owner.reports.sendNow({ id: siteId, reportId: report.id }))).toMatchObject({ status: 409 });
  });

  it('leaving themselves, or their account deleted, stops them the same way', async () => {
    const leaver = await colleague('member');
    const gone = await colleague('member');
    const { link: left } = await leaver.token.shares.create({ id: siteId, label: 'Leaver' });
    const { link: deleted } = await gone.token.shares.create({ id: siteId, label: 'Deleted account' });
    await leaver.session.members.remove({ userId: leaver.user.id });
    await t.deps.orm.em.fork().execute('delete from users where id = ?', [gone.user.id]);
    for (const link of [left, deleted]) {
      expect((await problemOf(anonymous().shares.open({ token: tokenOf(link.url) }))).status).toBe(404);
    }
  });

  it('an owner takes a link and a report over: the same link opens again and the report is sent again', async () => {
    const m = await colleague('member');
    const { link } = await m.session.shares.create({ id: siteId, label: 'Board' });
    const address = uniqueEmail('taken-over');
    const report = await dueReport(m.session, address);
    await owner.members.remove({ userId: m.user.id });
    expect((await problemOf(anonymous().shares.open({ token: tokenOf(link.url) }))).status).toBe(404);

    // An admin may not: taking over puts the figures under the taker's name, an owner's decision.
    expect((await problemOf(admin.shares.takeOver({ id: siteId, linkId: link.id }))).status).toBe(403);
    expect((await problemOf(admin.reports.takeOver({ id: siteId, reportId: report.id }))).status).toBe(403);

    expect((await owner.shares.takeOver({ id: siteId, linkId: link.id })).link).toMatchObject({
      id: link.id,
      url: link.url,
      creatorLeft: false,
    });
    expect((await anonymous().shares.open({ token: tokenOf(link.url) })).site.id).toBe(siteId);
    expect((await owner.reports.takeOver({ id: siteId, reportId: report.id })).report).toMatchObject({
      id: report.id,
      creatorLeft: false,
    });
    await runReports();
    await t.smtp.waitFor(address, /^Weekly report for Team site/);
  });

  // The defect: a take-over left the link marked as made with the maker's token, so revoking that token later
  // deleted the owner's link.
  it("a link an owner took over is the owner's: revoking the token it was made with leaves it open", async () => {
    const m = await colleague('member');
    const made = await createToken(t.deps, {
      userId: m.user.id,
      workspaceId,
      scopes: ['analytics:read', 'sites:read', 'sites:write', 'tokens:write'],
    });
    const withToken = callerFor(t.deps, made);
    const { link } = await withToken.shares.create({ id: siteId, label: 'Made with a token' });
    await owner.shares.takeOver({ id: siteId, linkId: link.id });
    await withToken.tokens.delete({ id: made.id });
    expect((await anonymous().shares.open({ token: tokenOf(link.url) })).site.id).toBe(siteId);
  });

  it('a link of a member who stays keeps opening and is not shown as stopped', async () => {
    const m = await colleague('member');
    const { link } = await m.session.shares.create({ id: siteId, label: 'Still here' });
    expect((await owner.shares.list({ id: siteId })).links.find((l) => l.id === link.id)?.creatorLeft).toBe(false);
    expect((await anonymous().shares.open({ token: tokenOf(link.url) })).site.id).toBe(siteId);
  });
});
