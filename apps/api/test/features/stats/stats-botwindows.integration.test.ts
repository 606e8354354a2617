import { eventRow } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dayAgo, insertRows, noonUtc, pv, type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';

describe('stats: bot windows file human traffic as bots after the fact', () => {
  let f: StatsFixture;
  let siteId: string;
  const day = dayAgo('UTC', 2);
  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site({
      settings: {
        botWindows: [
          { from: `${day}T10:00:00Z`, to: `${day}T11:00:00Z`, country: 'DE' },
          { from: `${day}T14:00:00Z`, to: `${day}T15:00:00Z`, network: 'AS64500' },
          { from: `${day}T16:00:00Z`, to: `${day}T17:00:00Z`, network: 'hetzner online gmbh' },
          // Stored before windows were bounded: ones the database cannot compare with are left out, and every
          // question of the site failed (500) while they were kept.
          { from: '0000-06-01T00:00:00Z', to: `${day}T23:00:00Z`, country: 'FR' },
          { from: `${day}T14:00:00Z`, to: `${day}T15:00:00Z`, network: 'AS99999999999' },
        ],
      },
    });
    await insertRows(f.t.deps.orm, 'pageviews', [
      pv(siteId, new Date(`${day}T10:30:00Z`), { country: 'DE', path: '/fleet' }), // window 1 → bot
      pv(siteId, new Date(`${day}T10:30:00Z`), { country: 'FR', path: '/fr' }), // other country → human
      pv(siteId, new Date(`${day}T14:30:00Z`), { asn: 64500, path: '/fleet' }), // window 2 → bot
      pv(siteId, new Date(`${day}T14:30:00Z`), { asn: 3320, path: '/telekom' }), // other network → human
      pv(siteId, new Date(`${day}T16:30:00Z`), { asOrg: 'Hetzner Online GmbH', path: '/fleet' }), // window 3 → bot
      pv(siteId, noonUtc(day, 12), { country: 'DE', path: '/outside' }), // outside every window → human
      pv(siteId, new Date(`${day}T10:30:00Z`), { country: 'DE', lane: 'internal', path: '/team' }), // not human: stays
    ]);
    const ev = (hour: number) =>
      eventRow(siteId, new Date(`${day}T${hour}:30:00Z`), { pageviewId: 'p', visitor: 'v', country: 'DE' });
    await insertRows(f.t.deps.orm, 'events', [ev(10), ev(14)]);
  });
  afterAll(() => f.close());

  it('counts pageviews inside a window in the bot lane, not the human one', async () => {
    const human = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'page', from: day, to: day }).expect(200);
    expect(human.body.rows.map((r: { value: string }) => r.value).sort()).toEqual(['/fr', '/outside', '/telekom']);
    const bot = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', by: 'page', from: day, to: day, lane: 'bot' })
      .expect(200);
    expect(bot.body.rows).toEqual([
      { value: '/fleet', counts: { pageviews: 3, sessions: 3, visitors: 3, scroll_depth: 0, time_on_page: 0 } },
    ]);
    const internal = await f
      .get(`/v1/sites/${siteId}/stats`, { metrics: 'pageviews', from: day, to: day, lane: 'internal' })
      .expect(200);
    expect(internal.body.totals.pageviews).toBe(1);
    const summary = await f.get(`/v1/sites/${siteId}/summary`, { from: day, to: day }).expect(200);
    expect(summary.body.measures.pageviews.value).toBe(3);
  });

  it('events: a window naming a network does not apply', async () => {
    const human = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'events', from: day, to: day }).expect(200);
    expect(human.body.totals.events).toBe(1);
    const bot = await f.get(`/v1/sites/${siteId}/stats`, { metrics: 'events', from: day, to: day, lane: 'bot' }).expect(200);
    expect(bot.body.totals.events).toBe(1);
  });
});
