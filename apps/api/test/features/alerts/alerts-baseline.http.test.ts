import { insertRows, type PageviewRow, pageviewRows } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addDays, localToday } from '../../../src/analytics/range.ts';
import { runAlerts } from '../../../src/features/alerts/alerts-job.ts';
import { lastClosedPeriod } from '../../../src/features/alerts/periods.ts';
import { alertsOwner, weeksBefore } from '../../support/alerts.ts';
import type { callerFor } from '../../support/caller.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/**
 * The usual figure a rule compares with: only the weeks the site has data for (a new site, or one whose
 * retention deleted older days), and a prefix goal's visitors counted by its prefix.
 */

const ZONE = 'Asia/Tokyo';
const NOW = new Date();
const YESTERDAY = addDays(localToday(ZONE, NOW), -1);
const [WEEK1, WEEK2] = weeksBefore(YESTERDAY) as [string, string];
const noon = (day: string) => new Date(`${day}T12:10:00+09:00`);

describe('the usual figure of an alert', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestServer();
    ({ owner, workspaceId } = await alertsOwner(t));
  });
  afterAll(() => t.close());

  const run = (siteId: string) => runAlerts(t.deps.orm, t.deps, { now: NOW, siteIds: [siteId], wait: true });
  const mailsTo = (address: string) => t.smtp.mails.filter((m) => m.to.includes(address) && !/^Confirm/.test(m.subject));

  /** A Tokyo site with `rows` (and the settings given), and a rule to `address`, which confirms it. */
  async function ruleOn(
    name: string,
    rows: (siteId: string) => PageviewRow[],
    address: string,
    rule: Omit<Parameters<typeof owner.alerts.create>[0], 'id'>,
    settings = {},
  ) {
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name, timezone: ZONE, settings });
    await insertRows(t.deps.orm, 'pageviews', rows(siteId));
    await owner.alerts.create({ id: siteId, recipients: [address], ...rule });
    await answerConfirmation(t, address, 'yes', 'alerts');
    return siteId;
  }

  // The defect: the 3 weeks without data counted 0, so a site with one week of 100 visitors a day had a usual
  // figure of 25, and each ordinary day was told as a spike.
  it('tells no spike of a site with one week of data: its usual figure waits for two weeks', async () => {
    const siteId = await ruleOn(
      'One week old',
      (id) => [...pageviewRows(id, noon(WEEK1), 100), ...pageviewRows(id, noon(YESTERDAY), 100)],
      'one-week@example.com',
      { kind: 'traffic_spike', thresholdPercent: 50 },
    );
    expect(await run(siteId)).toEqual({ ran: true, fired: 0, failed: 0 });
    const { deliveries } = await owner.alerts.deliveries({
      id: siteId,
      alert: (await owner.alerts.list({ id: siteId })).alerts[0]?.id ?? '',
    });
    expect(deliveries).toEqual([]);
    expect(mailsTo('one-week@example.com')).toEqual([]);
  });

  it('tells of a drop against the two weeks the site has data for', async () => {
    const siteId = await ruleOn(
      'Two weeks old',
      (id) => [WEEK1, WEEK2].flatMap((d) => pageviewRows(id, noon(d), 60)).concat(pageviewRows(id, noon(YESTERDAY), 20)),
      'two-weeks@example.com',
      { kind: 'traffic_drop', thresholdPercent: 50 },
    );
    expect(await run(siteId)).toEqual({ ran: true, fired: 1, failed: 0 });
    const mail = await t.smtp.waitFor('two-weeks@example.com', /^Traffic drop on Two weeks old$/);
    expect(mail.text).toContain('20 visitors in');
    expect(mail.text).toContain('Usual figure: 60, the average of the same time over the previous 4 weeks (-67%).');
  });

  // The defect: a path goal ending in `*` counted pageviews whose path was literally "/blog/*": none, so it never fired.
  it('tells when a prefix goal’s visitors fall, by day and by hour, counting People only', async () => {
    const goal = { id: 'blog', name: 'Blog', type: 'path' as const, match: '/blog/*' };
    const blog = (id: string, at: Date, n: number, lane: 'human' | 'bot' = 'human') =>
      pageviewRows(id, at, n, (i) => ({ path: `/blog/post-${i}`, lane }));
    const daily = await ruleOn(
      'Daily blog',
      (id) => [
        ...weeksBefore(YESTERDAY).flatMap((d) => blog(id, noon(d), 30)),
        ...blog(id, noon(YESTERDAY), 10),
        ...blog(id, noon(YESTERDAY), 40, 'bot'),
        // Inside the site's bot window: filed as bots after the fact.
        ...blog(id, new Date(`${YESTERDAY}T15:10:00+09:00`), 40),
        ...pageviewRows(id, noon(YESTERDAY), 50, () => ({ path: '/blogging' })),
      ],
      'prefix-day@example.com',
      { kind: 'goal_drop', goal: 'Blog', thresholdPercent: 50 },
      {
        goals: [goal],
        botWindows: [{ from: `${YESTERDAY}T15:00:00+09:00`, to: `${YESTERDAY}T16:00:00+09:00` }],
      },
    );
    const hour = lastClosedPeriod('hour', ZONE, NOW);
    const hourAt = (key: string) => new Date(`${key}:30+09:00`);
    const hourly = await ruleOn(
      'Hourly blog',
      (id) => [...hour.baselineKeys.flatMap((k) => blog(id, hourAt(k), 25)), ...blog(id, hourAt(hour.key), 5)],
      'prefix-hour@example.com',
      { kind: 'goal_drop', goal: 'Blog', thresholdPercent: 50, window: 'hour' },
      { goals: [goal] },
    );
    expect(await run(daily)).toEqual({ ran: true, fired: 1, failed: 0 });
    const mail = await t.smtp.waitFor('prefix-day@example.com', /^Goal conversions fell on Daily blog$/);
    expect(mail.text).toContain('10 visitors who completed "Blog" in');
    expect(mail.text).toContain('Usual figure: 30');
    expect(await run(hourly)).toEqual({ ran: true, fired: 1, failed: 0 });
    const hourMail = await t.smtp.waitFor('prefix-hour@example.com', /^Goal conversions fell on Hourly blog$/);
    expect(hourMail.text).toContain('5 visitors who completed "Blog" in');
    expect(hourMail.text).toContain('Usual figure: 25');
  });

  // The defect: the last period looked at is a local key; after the site moved west (Tokyo to Los Angeles), the new
  // zone's keys sorted before it, and every period was passed over as looked at for a day or more.
  it('still looks at periods after the site moves to a zone behind the last one it looked at', async () => {
    const siteId = await ruleOn(
      'Moved west',
      (id) => [WEEK1, WEEK2].flatMap((d) => pageviewRows(id, noon(d), 60)).concat(pageviewRows(id, noon(YESTERDAY), 20)),
      'moved-west@example.com',
      { kind: 'traffic_drop', thresholdPercent: 50 },
    );
    // As if looked at in a zone a day ahead of this one.
    await t.deps.orm.em
      .fork()
      .getConnection()
      .execute('update alerts set last_period = ? where site_id = ?', [addDays(YESTERDAY, 1), siteId]);
    expect(await run(siteId)).toEqual({ ran: true, fired: 1, failed: 0 });
    await t.smtp.waitFor('moved-west@example.com', /^Traffic drop on Moved west$/);
    // Looked at once: the next run passes it over.
    expect(await run(siteId)).toEqual({ ran: true, fired: 0, failed: 0 });
  });
});
