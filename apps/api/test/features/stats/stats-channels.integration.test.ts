// Channels and grouped sources over the stats API: rows stored with a source and channel (as intake now
// stores them) and rows stored before (read through the catalogue's fallback), from raw rows and from the
// day's rollup alike; and "from search" no longer counting Gmail.
import type { PageviewRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runRollups } from '../../../src/analytics/rollup/rollup.ts';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: channels and grouped sources', () => {
  let f: StatsFixture;
  let siteId: string;
  // Two days ago: a complete day the rollup job takes.
  const day = dayAgo('UTC', 2);
  const at = (minute: number) => new Date(noonUtc(day, 10).getTime() + minute * 60_000);
  const stats = (q: Record<string, string>) => f.get(`/v1/sites/${siteId}/stats`, { from: day, to: day, ...q });
  const summary = (q: Record<string, string> = {}) => f.get(`/v1/sites/${siteId}/summary`, { from: day, to: day, ...q });

  /** One single-page visit. */
  const visit = (minute: number, visitor: string, extra: Partial<PageviewRow>) =>
    pv(siteId, at(minute), { visitor, path: '/pricing', referrerHost: null, ...extra });

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    await insertRows(f.t.deps.orm, 'pageviews', [
      // Stored before channels (no source, no channel).
      visit(0, 'old-google', { referrerHost: 'www.google.com' }),
      visit(1, 'old-gmail', { referrerHost: 'mail.google.com' }),
      visit(2, 'old-direct', { country: 'FR' }),
      // Stored by today's intake.
      visit(3, 'google', { referrerHost: 'www.google.de', source: 'Google', channel: 'Organic Search' }),
      visit(4, 'gmail', { referrerHost: 'mail.google.com', source: 'Gmail', channel: 'Email' }),
      visit(5, 'gclid', { source: null, channel: 'Paid Search' }),
      visit(6, 'chatgpt', { referrerHost: 'chatgpt.com', source: 'ChatGPT', channel: 'AI assistants', path: '/docs' }),
      visit(7, 'chatgpt2', { referrerHost: 'chatgpt.com', source: 'ChatGPT', channel: 'AI assistants', country: 'FR' }),
    ]);
  });
  afterAll(() => f?.close());

  const byChannel = [
    { value: 'AI assistants', counts: { sessions: 2, visitors: 2 } },
    { value: 'Referral', counts: { sessions: 2, visitors: 2 } },
    { value: 'Direct', counts: { sessions: 1, visitors: 1 } },
    { value: 'Email', counts: { sessions: 1, visitors: 1 } },
    { value: 'Organic Search', counts: { sessions: 1, visitors: 1 } },
    { value: 'Paid Search', counts: { sessions: 1, visitors: 1 } },
  ];

  it('a Gmail referral is no visit from search; a search ad click without a referrer is', async () => {
    // From search: the old www.google.com row, the Organic Search row and the Paid Search row.
    expect((await summary().expect(200)).body.measures.fromSearch.value).toBe(3);
  });

  it('breaks down and filters by channel; rows before channels read Direct or Referral', async () => {
    const res = await stats({ metrics: 'sessions', by: 'channel' }).expect(200);
    expect(res.body.source).toBe('raw');
    expect(res.body.rows).toEqual(byChannel);
    const ai = await stats({ metrics: 'sessions', by: 'page', 'where.channel': 'AI assistants' }).expect(200);
    expect(ai.body.rows).toEqual([
      { value: '/docs', counts: { sessions: 1, visitors: 1 } },
      { value: '/pricing', counts: { sessions: 1, visitors: 1 } },
    ]);
    const top = await f.get(`/v1/sites/${siteId}/top/channel`, { from: day, to: day }).expect(200);
    expect(top.body.rows[0]).toEqual({ value: 'AI assistants', count: 2, share: 25 });
    expect((await summary({ 'where.channel': 'Email' }).expect(200)).body.measures.sessions.value).toBe(1);
  });

  it('sources group referrers by family; rows before channels keep their referrer host', async () => {
    const res = await stats({ metrics: 'sessions', by: 'source' }).expect(200);
    expect(res.body.rows).toEqual([
      { value: 'ChatGPT', counts: { sessions: 2, visitors: 2 } },
      { value: null, counts: { sessions: 2, visitors: 2 } },
      { value: 'Gmail', counts: { sessions: 1, visitors: 1 } },
      { value: 'Google', counts: { sessions: 1, visitors: 1 } },
      { value: 'mail.google.com', counts: { sessions: 1, visitors: 1 } },
      { value: 'www.google.com', counts: { sessions: 1, visitors: 1 } },
    ]);
    const google = await stats({ metrics: 'sessions', by: 'referrer', 'where.source': 'Google' }).expect(200);
    expect(google.body.rows).toEqual([{ value: 'www.google.de', counts: { sessions: 1, visitors: 1 } }]);
  });

  it('the day’s rollup gives the same answers: by channel, beside a page or a country, and from search', async () => {
    const questions: Record<string, string>[] = [
      { metrics: 'sessions', by: 'channel' },
      { metrics: 'pageviews', by: 'channel', 'where.country': 'FR' },
      { metrics: 'sessions', by: 'page', 'where.channel': 'AI assistants' },
      { metrics: 'sessions', by: 'exit_page', 'where.channel': 'Email' },
    ];
    const before = [];
    for (const q of questions) before.push((await stats(q).expect(200)).body);
    const run = await runRollups(f.t.deps.orm, { siteIds: [siteId], wait: true });
    expect(run.failed).toBe(0);
    for (const [i, q] of questions.entries()) {
      const after = (await stats(q).expect(200)).body;
      expect(after.source, JSON.stringify(q)).toBe('rollups');
      expect({ rows: after.rows, totals: after.totals }, JSON.stringify(q)).toEqual({
        rows: before[i].rows,
        totals: before[i].totals,
      });
    }
    expect(before[0].rows).toEqual(byChannel);
    expect(before[1].rows.map((r: { value: string; counts: { pageviews: number } }) => [r.value, r.counts.pageviews])).toEqual([
      ['AI assistants', 1],
      ['Direct', 1],
    ]);
    const rolled = (await summary().expect(200)).body;
    expect(rolled.source).toBe('rollups');
    expect(rolled.measures.fromSearch.value).toBe(3);
    const email = (await summary({ 'where.channel': 'Email' }).expect(200)).body;
    expect(email.measures.fromSearch.value).toBe(0);
    expect(email.measures.sessions.value).toBe(1);
  });
});
