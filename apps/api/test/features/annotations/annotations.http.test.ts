// Annotations over HTTP: a day and a text on a site's chart; refusals by field, newest day first in pages,
// at most 1,000 per site.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createToken } from '../../support/server.ts';
import { type StatsFixture, statsFixture } from '../../support/stats-fixture.ts';
import { tokenApi } from '../../support/token-api.ts';

describe('annotations', () => {
  let f: StatsFixture;
  let siteId: string;
  let auth: string;
  const api = () => tokenApi(f.t, () => auth);
  const send = (method: 'post' | 'patch', path: string, body: unknown) => api()[method](path, body);
  const get = (path: string, query: Record<string, string | number> = {}) => api().get(path, query);
  const del = (path: string) => api().del(path);
  const add = (site: string, day: string, text: string) => send('post', `/v1/sites/${site}/annotations`, { day, text });

  beforeAll(async () => {
    f = await statsFixture();
    siteId = await f.site();
    const { token } = await createToken(f.t.deps, {
      userId: f.userId,
      workspaceId: f.workspaceId,
      scopes: ['sites:read', 'sites:write', 'analytics:read'],
    });
    auth = `Bearer ${token}`;
  });
  afterAll(() => f?.close());

  it('marks a day, lists it, changes and removes it', async () => {
    const made = await add(siteId, '2026-11-20', '  Deployed v2.4 (pricing page)  ').expect(201);
    expect(made.body.annotation).toMatchObject({ day: '2026-11-20', text: 'Deployed v2.4 (pricing page)' });
    const id = made.body.annotation.id;
    const changed = await send('patch', `/v1/sites/${siteId}/annotations/${id}`, { day: '2026-11-21' }).expect(200);
    expect(changed.body.annotation).toMatchObject({ id, day: '2026-11-21', text: 'Deployed v2.4 (pricing page)' });
    const listed = await get(`/v1/sites/${siteId}/annotations`).expect(200);
    expect(listed.body.annotations).toEqual([changed.body.annotation]);
    await del(`/v1/sites/${siteId}/annotations/${id}`).expect(204);
    await del(`/v1/sites/${siteId}/annotations/${id}`).expect(404);
    await send('patch', `/v1/sites/${siteId}/annotations/not-an-id`, { text: 'x' }).expect(404);
    expect((await get(`/v1/sites/${siteId}/annotations`).expect(200)).body.annotations).toEqual([]);
  });

  it.each([
    ['a day not in the calendar', { day: '2026-02-30', text: 'x' }, 'day', /day of the calendar/],
    ['a day in another form', { day: '30/11/2026', text: 'x' }, 'day', /YYYY-MM-DD/],
    ['no text', { day: '2026-11-20', text: '   ' }, 'text', /Give the annotation a text/],
    ['a text over 280 characters', { day: '2026-11-20', text: 'x'.repeat(281) }, 'text', /at most 280/],
  ])('refuses %s (400 naming the field)', async (_, body, field, message) => {
    const res = await send('post', `/v1/sites/${siteId}/annotations`, body).expect(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body.field).toBe(field);
    expect(res.body.title).toMatch(message);
  });

  it('lists newest day first, bounded by from/to, in pages that a cursor walks without gaps or repeats', async () => {
    const site = await f.site();
    const days = ['2026-10-01', '2026-10-02', '2026-10-02', '2026-10-05', '2026-10-09', '2026-10-12', '2026-10-15'];
    for (const [i, day] of days.entries()) await add(site, day, `mark ${i}`).expect(201);
    const seen: { day: string; text: string }[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: Record<string, string | number> = { limit: 3, from: '2026-10-02', to: '2026-10-12' };
      if (cursor) query.cursor = cursor;
      const { body } = await get(`/v1/sites/${site}/annotations`, query).expect(200);
      seen.push(...body.annotations);
      cursor = body.next;
      pages++;
    } while (cursor && pages < 10);
    expect(pages).toBe(2);
    expect(seen.map((a) => a.day)).toEqual(['2026-10-12', '2026-10-09', '2026-10-05', '2026-10-02', '2026-10-02']);
    expect(new Set(seen.map((a) => a.text)).size).toBe(5);
    const bad = await get(`/v1/sites/${site}/annotations`, { cursor: 'not-a-cursor' }).expect(400);
    expect(bad.body.field).toBe('cursor');
    const tooMany = await get(`/v1/sites/${site}/annotations`, { limit: 501 }).expect(400);
    expect(tooMany.body.field).toBe('limit');
  });

  it('keeps at most 1,000 annotations per site (409), counted before each insert', async () => {
    const site = await f.site();
    // 998 already there (an agent marking every deploy for years), then five at once: two fit.
    await f.t.deps.orm.em.getConnection().execute(
      `insert into annotations (id, site_id, day, text)
         select gen_random_uuid(), ?, date '2024-01-01' + (n % 700), 'deploy ' || n from generate_series(1, 998) n`,
      [site],
    );
    const made = await Promise.all(Array.from({ length: 5 }, (_, i) => add(site, '2026-11-27', `late ${i}`)));
    expect(made.map((r) => r.status).sort()).toEqual([201, 201, 409, 409, 409]);
    expect(made.find((r) => r.status === 409)?.body.title).toMatch(/at most 1000 annotations/);
  });

  it('answers 404 for another workspace’s site, and needs sites:write to mark (403 naming the scope)', async () => {
    const stranger = await statsFixture();
    try {
      const theirs = await stranger.site();
      await get(`/v1/sites/${theirs}/annotations`).expect(404);
      await add(theirs, '2026-11-20', 'x').expect(404);
    } finally {
      await stranger.close();
    }
    // The fixture's own token holds analytics:read only.
    const refused = await f.post(`/v1/sites/${siteId}/annotations`, { day: '2026-11-20', text: 'No' }).expect(403);
    expect(JSON.stringify(refused.body)).toContain('sites:write');
  });
});
