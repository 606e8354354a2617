import { randomUUID } from 'node:crypto';
import { insertRows, newVisitor, type PageviewRow, pageviewRow } from '@us/db';
import type { StatsResult, Summary } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../../src/analytics/range.ts';
import { MAIL_BUDGET, mayMail } from '../../../src/core/mail/budget.ts';
import { sendDue } from '../../../src/features/reports/due.ts';
import { lastClosedPeriod } from '../../../src/features/reports/periods.ts';
import { runEmailReports } from '../../../src/features/reports/reports-job.ts';
import { callerFor, problemOf } from '../../support/caller.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { type CapturedMail, linkToken } from '../../support/smtp.ts';

/** Weekly and monthly e-mail reports, sent by the job into a real SMTP server, with the stats API's figures. */

// Tokyo keeps no daylight saving time: its weeks close at Sunday 15:00 UTC all year round.
const ZONE = 'Asia/Tokyo';
const WEEK = lastClosedPeriod('weekly', localToday(ZONE));
const WEEK_BEFORE = { from: addDays(WEEK.from, -7), to: addDays(WEEK.from, -1) };
/** Monday 00:00 in Tokyo after WEEK: the moment the week closes on the site's own days. */
const CLOSED = new Date(`${addDays(WEEK.to, 1)}T00:00:00+09:00`);
const minutes = (n: number) => new Date(CLOSED.getTime() + n * 60_000);

const PAGES = [['/', '/pricing'], ['/blog'], ['/', '/signup', '/pricing']];

/** One visit: `pages` a minute apart from `hour` (Tokyo time) of `day`, the first beginning the session. */
function visit(siteId: string, day: string, hour: number, visitor: string, pages: string[], referrerHost: string | null) {
  const start = new Date(`${day}T${String(hour).padStart(2, '0')}:00:00+09:00`).getTime();
  return pages.map((path, i) =>
    pageviewRow(siteId, new Date(start + i * 60_000), { visitor, sessionStart: i === 0, path, referrerHost }),
  );
}

/**
 * Two weeks of traffic. The week before: each day 3 visitors from Google, 2 from Bing, 1 direct. The
 * week reported: each day 4 from Google (one comes back directly in the evening: 2 sessions, 1 visitor
 * that day), 3 from Hacker News, 1 direct. So visitors and sessions differ, Hacker News rises the most
 * and Bing falls the most.
 */
function twoWeeks(siteId: string): PageviewRow[] {
  const rows: PageviewRow[] = [];
  for (let d = 0; d < 7; d++) {
    const before = addDays(WEEK_BEFORE.from, d);
    const earlier = ['www.google.com', 'www.google.com', 'www.google.com', 'www.bing.com', 'www.bing.com', null];
    for (const [k, src] of earlier.entries()) {
      rows.push(...visit(siteId, before, 9 + k, newVisitor(), PAGES[k % 3] ?? [], src));
    }
    const day = addDays(WEEK.from, d);
    const google = Array<string>(4).fill('www.google.com');
    const now = [...google, ...Array<string>(3).fill('news.ycombinator.com'), null];
    now.forEach((src, k) => {
      const visitor = newVisitor();
      rows.push(...visit(siteId, day, 9 + k, visitor, PAGES[k % 3] ?? [], src));
      if (k === 0) rows.push(...visit(siteId, day, 20, visitor, ['/pricing'], null));
    });
  }
  return rows;
}

/** The capture undoes quoted-printable byte by byte: read those bytes back as UTF-8 (the dashes, arrows). */
const textOf = (m: CapturedMail) => Buffer.from(m.text, 'latin1').toString('utf8').replace(/\r\n/g, '\n');
const count = (n: number) => new Intl.NumberFormat('en').format(n);
const signed = (n: number) => `${n >= 0 ? '+' : ''}${count(n)}`;

describe('e-mail reports', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let auth: string;
  let siteId: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspace.id, name: 'Report shop', timezone: ZONE })).siteId;
    const credential = await createToken(t.deps, {
      userId: user.id,
      workspaceId: workspace.id,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    owner = callerFor(t.deps, credential);
    auth = `Bearer ${credential.token}`;
    await insertRows(t.deps.orm, 'pageviews', twoWeeks(siteId));
  });
  afterAll(() => t.close());

  /** A report, confirmed by its address, as if it had been set up during WEEK (its last closed period then: the week before). */
  async function reportFrom(address: string, frequency: 'weekly' | 'monthly', lastStart: string) {
    const { report } = await owner.reports.add({ id: siteId, address, frequency });
    await answerConfirmation(t, address);
    await t.deps.orm.em.fork().execute('update email_reports set last_period_start = ? where id = ?', [lastStart, report.id]);
    return report;
  }

  /** The stats API over HTTP, as any client asks it. */
  async function statsQuery(spec: Record<string, unknown>): Promise<StatsResult> {
    const res = await t.request
      .post(`/v1/sites/${siteId}/stats/query`)
      .set('Authorization', auth)
      .send({ ...spec, from: WEEK.from, to: WEEK.to, compare: true, lane: 'human' });
    expect(res.status).toBe(200);
    return res.body as StatsResult;
  }

  it('names the periods in the site’s own days: the last full week (Monday to Sunday) or month', () => {
    expect(lastClosedPeriod('weekly', '2026-11-23')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(lastClosedPeriod('weekly', '2026-11-22')).toEqual({ from: '2026-11-09', to: '2026-11-15' });
    expect(lastClosedPeriod('weekly', '2026-11-29')).toEqual({ from: '2026-11-16', to: '2026-11-22' });
    expect(lastClosedPeriod('monthly', '2026-11-01')).toEqual({ from: '2026-10-01', to: '2026-10-31' });
    expect(lastClosedPeriod('monthly', '2026-03-15')).toEqual({ from: '2026-02-01', to: '2026-02-28' });
    expect(lastClosedPeriod('monthly', '2028-03-01')).toEqual({ from: '2028-02-01', to: '2028-02-29' });
  });

  it('sends each due report once, when its week has closed in the site’s zone, with the stats API’s figures', async () => {
    const report = await reportFrom('weekly@example.com', 'weekly', WEEK_BEFORE.from);
    const run = (at: Date) => runEmailReports(t.deps.orm, t.deps, { now: at, siteIds: [siteId], wait: true });
    // Sunday 23:30 in Tokyo: the week is still open there.
    expect(await run(minutes(-30))).toEqual({ ran: true, sent: 0, failed: 0, deferred: 0 });
    expect(await run(minutes(30))).toEqual({ ran: true, sent: 1, failed: 0, deferred: 0 });
    const sent = await t.smtp.waitFor('weekly@example.com', /^Weekly report for Report shop/);
    const text = textOf(sent);

    // The same questions through the REST API.
    const summaryRes = await t.request
      .get(`/v1/sites/${siteId}/summary`)
      .query({ from: WEEK.from, to: WEEK.to })
      .set('Authorization', auth)
      .expect(200);
    const summary = summaryRes.body as Summary;
    const totals = await statsQuery({ metrics: 'pageviews' });
    const sources = await statsQuery({ metrics: 'sessions', by: 'source', sort: 'visitors', limit: 100 });
    const pages = await statsQuery({ metrics: 'pageviews', by: 'page', sort: 'visitors', limit: 100 });

    const visitors = totals.totals.visitors ?? 0;
    const previous = totals.previous?.totals.visitors ?? 0;
    expect([visitors, previous, summary.measures.sessions.value]).toEqual([56, 42, 63]);
    const change = Math.round(((visitors - previous) / previous) * 1000) / 10;
    expect(sent.subject).toBe(`Weekly report for Report shop: ${count(visitors)} visitors (+${change}%)`);
    expect(text).toContain(`(People, days in ${ZONE}).`);
    expect(text).toContain(`Compared with the previous period, ${summary.previousFrom} – ${summary.previousTo}.`);
    expect(text).toContain(`Visitors: ${visitors} (previous period ${previous}, +${change}%)`);
    const m = summary.measures;
    expect(text).toContain(`Sessions: ${m.sessions.value} (previous period ${m.sessions.previous}, +${m.sessions.change}%)`);
    expect(text).toContain(`Pageviews: ${m.pageviews.value} (previous period ${m.pageviews.previous}, +${m.pageviews.change}%)`);
    expect(text).toContain(`Bounce rate: ${m.bounceRate.value}% (previous period ${m.bounceRate.previous}%`);

    // The top five of each table, each with its previous-period figure, in the API's order.
    const block = (title: string, answer: StatsResult) => {
      const before = new Map(answer.previous?.rows.map((r) => [r.value, r.counts.visitors ?? 0]));
      const lines = answer.rows.slice(0, 5).map((r) => {
        const now = r.counts.visitors ?? 0;
        const was = before.get(r.value) ?? 0;
        return `  ${r.value ?? 'Direct / none'}: ${now} (was ${was}, ${signed(now - was)})`;
      });
      return [title, ...lines].join('\n');
    };
    expect(sources.rows.map((r) => r.value)).toEqual(['www.google.com', 'news.ycombinator.com', null]);
    expect(text).toContain(block('Top sources by visitors', sources));
    expect(text).toContain(block('Top pages by visitors', pages));
    const hn = sources.rows.find((r) => r.value === 'news.ycombinator.com')?.counts.visitors ?? 0;
    const bing = sources.previous?.rows.find((r) => r.value === 'www.bing.com')?.counts.visitors ?? 0;
    expect(text).toContain(`Biggest rise: source news.ycombinator.com, 0 → ${hn} visitors (+${hn})`);
    expect(text).toContain(`Biggest fall: source www.bing.com, ${bing} → 0 visitors (-${bing})`);
    expect(text).toContain(`/sites/${siteId}/dashboard?range=custom&from=${WEEK.from}&to=${WEEK.to}`);
    expect(sent.raw).toContain('Content-Type: text/html');

    // Again, in the same week: nothing more. The list says when it was sent.
    const mailsBefore = t.smtp.mails.length;
    expect(await run(minutes(30))).toEqual({ ran: true, sent: 0, failed: 0, deferred: 0 });
    expect(await run(minutes(24 * 60))).toEqual({ ran: true, sent: 0, failed: 0, deferred: 0 });
    expect(t.smtp.mails.length).toBe(mailsBefore);
    const listed = (await owner.reports.list({ id: siteId })).reports.find((r) => r.id === report.id);
    expect(listed?.lastSentAt).toBe(minutes(30).toISOString());

    // The mail's unsubscribe link, through the dashboard's tRPC face: it removes the report (and any other of
    // the workspace to that address), once.
    const token = linkToken(sent, 'unsubscribe-report');
    const first = await t.request.post('/trpc/reports.unsubscribe').send({ token }).expect(200);
    expect(first.body.result.data).toEqual({ address: 'weekly@example.com', siteName: 'Report shop', frequency: 'weekly' });
    expect((await owner.reports.list({ id: siteId })).reports.some((r) => r.id === report.id)).toBe(false);
    expect((await t.request.post('/trpc/reports.unsubscribe').send({ token })).status).toBe(404);
  });

  it('keeps a report whose e-mail the SMTP server refused due, and sends it at the next run; the others still go', async () => {
    const failing = await reportFrom('flaky@example.com', 'weekly', WEEK_BEFORE.from);
    const lastMonth = lastClosedPeriod('monthly', localToday(ZONE, minutes(90)));
    const steady = await reportFrom('steady@example.com', 'monthly', addDays(lastMonth.from, -40));
    const run = () => runEmailReports(t.deps.orm, t.deps, { now: minutes(90), siteIds: [siteId], wait: true });
    t.smtp.refused.add('flaky@example.com');
    try {
      expect(await run()).toEqual({ ran: true, sent: 1, failed: 1, deferred: 0 });
    } finally {
      t.smtp.refused.delete('flaky@example.com');
    }
    expect(t.smtp.mails.some((m) => m.to.includes('flaky@example.com') && /^Weekly report/.test(m.subject))).toBe(false);
    const monthly = await t.smtp.waitFor('steady@example.com', /^Monthly report for Report shop/);
    expect(textOf(monthly)).toContain(`/dashboard?range=custom&from=${lastMonth.from}&to=${lastMonth.to}`);
    expect(await run()).toEqual({ ran: true, sent: 1, failed: 0, deferred: 0 });
    await t.smtp.waitFor('flaky@example.com', /^Weekly report for Report shop: 56 visitors/);
    expect(await run()).toEqual({ ran: true, sent: 0, failed: 0, deferred: 0 });
    await owner.reports.remove({ id: siteId, reportId: failing.id });
    await owner.reports.remove({ id: siteId, reportId: steady.id });
  });

  // The defect: a report was marked sent only after its e-mail left, and nothing claimed it before: two runs at
  // once (a node whose job lock was lost with its connection, while another node's run began) both sent it.
  it('two runs at once send a due report once: each claims it before its e-mail goes', async () => {
    const address = 'once@example.com';
    const report = await reportFrom(address, 'weekly', WEEK_BEFORE.from);
    const now = minutes(90);
    const [a, b] = await Promise.all([
      sendDue(t.deps.orm.em.fork(), t.deps, { now, siteIds: [siteId] }),
      sendDue(t.deps.orm.em.fork(), t.deps, { now, siteIds: [siteId] }),
    ]);
    expect(a.sent + b.sent).toBe(1);
    await t.smtp.waitFor(address, /^Weekly report for Report shop/);
    expect(t.smtp.mails.filter((m) => m.to.includes(address) && /^Weekly report/.test(m.subject))).toHaveLength(1);
    await owner.reports.remove({ id: siteId, reportId: report.id });
  });

  // The defect: the claim moved the report's period before its e-mail went, and nothing gave it back when the run
  // stopped in between (a deploy's SIGTERM while the mail server was slow, a crash): that week's report was lost.
  it('a report whose run stopped before its e-mail went goes at a run after the claim lapses', async () => {
    const address = 'stopped@example.com';
    const report = await reportFrom(address, 'weekly', WEEK_BEFORE.from);
    const now = minutes(90);
    const stalled = { ...t.deps, mailer: { ...t.deps.mailer, send: () => new Promise<never>(() => {}) } };
    void sendDue(t.deps.orm.em.fork(), stalled, { now, siteIds: [siteId] });
    const claimed = async () =>
      (
        await t.deps.orm.em
          .fork()
          .execute<{ until: Date | null }[]>('select sending_until as until from email_reports where id = ?', [report.id])
      )[0]?.until ?? null;
    await expect.poll(claimed).not.toBeNull();
    // While the claim holds, another run does not send it beside the one in flight.
    expect((await sendDue(t.deps.orm.em.fork(), t.deps, { now, siteIds: [siteId] })).sent).toBe(0);
    // A quarter of an hour later the claim has lapsed: the next run sends it, once.
    await t.deps.orm.em
      .fork()
      .execute(`update email_reports set sending_until = now() - interval '1 second' where id = ?`, [report.id]);
    expect((await sendDue(t.deps.orm.em.fork(), t.deps, { now, siteIds: [siteId] })).sent).toBe(1);
    await t.smtp.waitFor(address, /^Weekly report for Report shop/);
    expect((await sendDue(t.deps.orm.em.fork(), t.deps, { now, siteIds: [siteId] })).sent).toBe(0);
    await owner.reports.remove({ id: siteId, reportId: report.id });
  });

  // The defect: a mailbox that does not exist (550) was tried every hour, forever: each try read the figures again,
  // spent the address's budget and logged an error.
  it('passes over the period of a report whose address the mail server rejects for good, and tries the next period', async () => {
    const report = await reportFrom('gone@example.com', 'weekly', WEEK_BEFORE.from);
    const run = () => runEmailReports(t.deps.orm, t.deps, { now: minutes(90), siteIds: [siteId], wait: true });
    t.smtp.rejected.add('gone@example.com');
    try {
      expect(await run()).toEqual({ ran: true, sent: 0, failed: 1, deferred: 0 });
      expect(await run()).toEqual({ ran: true, sent: 0, failed: 0, deferred: 0 });
    } finally {
      t.smtp.rejected.delete('gone@example.com');
    }
    const [row] = await t.deps.orm.em
      .fork()
      .execute<{ p: string }[]>(`select to_char(last_period_start, 'YYYY-MM-DD') as p from email_reports where id = ?`, [
        report.id,
      ]);
    expect(row?.p).toBe(lastClosedPeriod('weekly', localToday(ZONE, minutes(90))).from);
    await owner.reports.remove({ id: siteId, reportId: report.id });
  });

  // A report whose figures cannot be read (its workspace's stats slots all taken here; a site too large for the
  // statement timeout in the world) was retried every hour, and each try spent one of its address's five e-mails
  // an hour, which sign-up and password mail share.
  it("spends none of the address's e-mail budget on a report whose figures cannot be read; it stays due", async () => {
    const report = await reportFrom('patient@example.com', 'weekly', WEEK_BEFORE.from);
    const run = () => runEmailReports(t.deps.orm, t.deps, { now: minutes(90), siteIds: [siteId], wait: true });
    const [{ w } = { w: '' }] = await t.deps.orm.em
      .fork()
      .execute<{ w: string }[]>('select workspace_id::text as w from sites where id = ?', [siteId]);
    const key = `stats-running:${w}`;
    const limit = t.deps.env.STATS_CONCURRENT_PER_WORKSPACE;
    const holders = Array.from({ length: limit }, (_, i) => `question-${i}`);
    for (const h of holders) expect(await t.deps.hot.acquireSlot(key, h, limit, 60)).toBe(true);
    try {
      expect(await run()).toEqual({ ran: true, sent: 0, failed: 1, deferred: 0 });
    } finally {
      for (const h of holders) await t.deps.hot.releaseSlot(key, h);
    }
    // The confirmation took one of the address's hour; the failed report none.
    let left = 0;
    while ((await mayMail(t.deps.hot, 'patient@example.com')) && left < 10) left++;
    expect(left).toBe(MAIL_BUDGET.perAddressPerHour - 1);
    await owner.reports.remove({ id: siteId, reportId: report.id });
  });

  it('refuses unsubscribe links that were made up, and keeps the report', async () => {
    const anonymous = callerFor(t.deps, { anonymous: true });
    const { report } = await owner.reports.add({ id: siteId, address: 'kept@example.com', frequency: 'weekly' });
    for (const token of [`${report.id}_${'0'.repeat(64)}`, `${randomUUID()}_${'a'.repeat(64)}`, 'nonsense']) {
      expect(await problemOf(anonymous.reports.unsubscribe({ token }))).toMatchObject({
        status: 404,
        title: expect.stringMatching(/^This unsubscribe link is not valid/),
      });
    }
    expect((await owner.reports.list({ id: siteId })).reports.map((r) => r.address)).toContain('kept@example.com');
  });
});
