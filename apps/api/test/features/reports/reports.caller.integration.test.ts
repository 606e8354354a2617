import { randomUUID } from 'node:crypto';
import { REPORTS_PER_SITE } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, problemOf } from '../../support/caller.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** E-mail report addresses (reports.*): who may set them, what is checked, and "Send now". */
describe('e-mail report addresses', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let reader: ReturnType<typeof callerFor>;
  let foreign: ReturnType<typeof callerFor>;
  let siteId: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Mailed' })).siteId;
    const token = (scopes: Parameters<typeof createToken>[1]['scopes']) =>
      createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes }).then((r) => callerFor(t.deps, r));
    owner = await token(['sites:read', 'sites:write', 'analytics:read']);
    reader = await token(['sites:read']);
    const other = await createUser(t.deps);
    foreign = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: other.user.id,
        workspaceId: other.workspace.id,
        scopes: ['analytics:read', 'sites:write', 'sites:read'],
      }),
    );
  });
  afterAll(() => t.close());

  it('adds, lists and removes addresses; one address once per frequency', async () => {
    const { report } = await owner.reports.add({ id: siteId, address: 'Team@Example.com', frequency: 'weekly' });
    expect(report).toMatchObject({ address: 'team@example.com', frequency: 'weekly', lastSentAt: null });
    await owner.reports.add({ id: siteId, address: 'team@example.com', frequency: 'monthly' });
    expect(await problemOf(owner.reports.add({ id: siteId, address: 'TEAM@example.com', frequency: 'weekly' }))).toMatchObject({
      status: 409,
      title: 'team@example.com already gets the weekly report of this site',
    });
    expect((await reader.reports.list({ id: siteId })).reports.map((r) => `${r.address} ${r.frequency}`)).toEqual([
      'team@example.com weekly',
      'team@example.com monthly',
    ]);
    expect(await owner.reports.remove({ id: siteId, reportId: report.id })).toEqual({ removed: true });
    expect((await problemOf(owner.reports.remove({ id: siteId, reportId: report.id }))).status).toBe(404);
  });

  it('checks what it is given and who asks', async () => {
    expect(await problemOf(owner.reports.add({ id: siteId, address: 'not an address', frequency: 'weekly' }))).toMatchObject({
      status: 400,
      field: 'address',
      title: 'Fix address: Give one e-mail address, such as team@example.com',
    });
    expect(
      await problemOf(owner.reports.add({ id: siteId, address: 'a@example.com', frequency: 'daily' as 'weekly' })),
    ).toMatchObject({ status: 400, field: 'frequency' });
    expect((await problemOf(reader.reports.add({ id: siteId, address: 'a@example.com', frequency: 'weekly' }))).status).toBe(403);
    expect((await problemOf(foreign.reports.add({ id: siteId, address: 'a@example.com', frequency: 'weekly' }))).status).toBe(
      404,
    );
    expect((await problemOf(foreign.reports.list({ id: siteId }))).status).toBe(404);
    expect((await problemOf(owner.reports.sendNow({ id: siteId, reportId: randomUUID() }))).status).toBe(404);
    expect((await problemOf(callerFor(t.deps, { anonymous: true }).reports.list({ id: siteId }))).status).toBe(401);
  });

  it(`keeps at most ${REPORTS_PER_SITE} addresses per site, even when they are added at once`, async () => {
    const { siteId: busy } = await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name: 'Many' });
    const added = await Promise.allSettled(
      Array.from({ length: REPORTS_PER_SITE + 3 }, (_, i) =>
        owner.reports.add({ id: busy, address: `r${i}@example.com`, frequency: 'weekly' }),
      ),
    );
    expect(added.filter((a) => a.status === 'fulfilled').length).toBe(REPORTS_PER_SITE);
    expect((await owner.reports.list({ id: busy })).reports).toHaveLength(REPORTS_PER_SITE);
    // One more, later, is refused too, saying what to do; a removed one makes room again.
    expect(await problemOf(owner.reports.add({ id: busy, address: 'eleventh@example.com', frequency: 'monthly' }))).toEqual({
      status: 409,
      title: `A site sends at most ${REPORTS_PER_SITE} reports: remove one, then add this address`,
      field: undefined,
    });
    const [first] = (await owner.reports.list({ id: busy })).reports;
    await owner.reports.remove({ id: busy, reportId: first?.id ?? '' });
    await owner.reports.add({ id: busy, address: 'eleventh@example.com', frequency: 'monthly' });
  });

  it('refuses an unsubscribe token that was not made by this service (404), to anyone', async () => {
    const anonymous = callerFor(t.deps, { anonymous: true });
    for (const token of ['nonsense', `${randomUUID()}_${'f'.repeat(64)}`]) {
      expect(await problemOf(anonymous.reports.unsubscribe({ token }))).toMatchObject({
        status: 404,
        title: 'This unsubscribe link is not valid, or the report was already removed: nothing more will be sent with it',
      });
    }
    expect((await problemOf(anonymous.reports.unsubscribe({ token: 'x'.repeat(201) }))).status).toBe(400);
  });

  it('sends the last closed period now, at most once a minute per report', async () => {
    const { report } = await owner.reports.add({ id: siteId, address: 'now@example.com', frequency: 'monthly' });
    await answerConfirmation(t, 'now@example.com');
    const sent = await owner.reports.sendNow({ id: siteId, reportId: report.id });
    expect(sent.sent).toBe(true);
    expect(sent.from).toMatch(/^\d{4}-\d{2}-01$/);
    const mail = await t.smtp.waitFor('now@example.com', /^Monthly report for Mailed: 0 visitors$/);
    expect(mail.text).toContain(`range=custom&from=${sent.from}&to=${sent.to}`);
    expect(await problemOf(owner.reports.sendNow({ id: siteId, reportId: report.id }))).toMatchObject({
      status: 429,
      title: expect.stringMatching(/^This report was just sent: wait \d+ seconds, then send it again$/),
    });
    // "Send now" leaves the schedule alone: the report has still not been sent by the job.
    expect((await owner.reports.list({ id: siteId })).reports.find((r) => r.id === report.id)?.lastSentAt).toBeNull();
    expect((await problemOf(reader.reports.sendNow({ id: siteId, reportId: report.id }))).status).toBe(403);
  });

  // The defect: when the mail server refused, the next Send now said the report was "just sent", and the refused
  // e-mail kept its place in the address's and the workspace's budgets.
  it('Send now whose e-mail the mail server refused says so, and can be sent again at once', async () => {
    const address = 'refused-now@example.com';
    const { report } = await owner.reports.add({ id: siteId, address, frequency: 'weekly' });
    await answerConfirmation(t, address);
    t.smtp.refused.add(address);
    try {
      expect(await problemOf(owner.reports.sendNow({ id: siteId, reportId: report.id }))).toMatchObject({
        status: 503,
        title: expect.stringMatching(/could not be sent/),
      });
    } finally {
      t.smtp.refused.delete(address);
    }
    expect((await owner.reports.sendNow({ id: siteId, reportId: report.id })).sent).toBe(true);
    await t.smtp.waitFor(address, /^Weekly report for Mailed/);
    // A mailbox the mail server says does not exist: 409 naming the address, to be checked.
    const gone = 'gone-now@example.com';
    const other = await owner.reports.add({ id: siteId, address: gone, frequency: 'weekly' });
    await answerConfirmation(t, gone);
    t.smtp.rejected.add(gone);
    try {
      expect(await problemOf(owner.reports.sendNow({ id: siteId, reportId: other.report.id }))).toMatchObject({
        status: 409,
        title: expect.stringMatching(/^The mail server rejected gone-now@example.com for good .*: check the address$/),
      });
    } finally {
      t.smtp.rejected.delete(gone);
    }
  });

  it('cannot be used to flood an address: its confirmation and Send now spend the address’s 5 e-mails an hour, over every site', async () => {
    const sites = await Promise.all(
      ['Flood 1', 'Flood 2', 'Flood 3'].map((name) => createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name })),
    );
    const reports = [];
    for (const { siteId: id } of sites) {
      for (const frequency of ['weekly', 'monthly'] as const) {
        reports.push({ id, reportId: (await owner.reports.add({ id, address: 'victim@example.com', frequency })).report.id });
      }
    }
    // One confirmation e-mail for the six reports: the first of the address's five this hour.
    await answerConfirmation(t, 'victim@example.com');
    const answers = [];
    for (const r of reports)
      answers.push(
        await owner.reports.sendNow(r).then(
          () => 200,
          (e) => problemOf(Promise.reject(e)).then((p) => p.status),
        ),
      );
    expect(answers).toEqual([200, 200, 200, 200, 429, 429]);
    // Send now answers once the mail server took its e-mail (the capture keeps a message before its 250): all
    // six answers are in, so every e-mail sent is too.
    expect(t.smtp.mails.filter((m) => m.to.includes('victim@example.com'))).toHaveLength(5);
  });
});
