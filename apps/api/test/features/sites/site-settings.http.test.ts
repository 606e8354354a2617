import { Site } from '@us/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem } from '../../support/auth-helpers.ts';
import { createToken, startTestServer, type TestServer } from '../../support/server.ts';
import { siteOfNewOwner as newOwnerSite } from '../../support/sites.ts';

describe('site settings, goals and experiments', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  const siteOfNewOwner = () => newOwnerSite(t, { name: 'Settings' });

  const patch = (o: { auth: string; siteId: string }, body: unknown) =>
    t.request
      .patch(`/v1/sites/${o.siteId}/settings`)
      .set('Authorization', o.auth)
      .send(body as object);

  const WINDOW = { from: '2030-01-01T00:00:00Z', to: '2030-01-02T00:00:00Z' };

  describe('PATCH /v1/sites/{id}/settings', () => {
    it('replaces the named lists, keeps the others, and answers the site', async () => {
      const o = await siteOfNewOwner();
      const first = await patch(o, {
        internalNetworks: ['203.0.113.0/24', '2001:DB8::/48'],
        botWindows: [
          { from: '2030-01-01T01:00:00+01:00', to: '2030-01-01T02:00:00Z', country: 'de', network: 'AS15169', note: 'load test' },
        ],
        goals: [
          { name: 'Signed up!', type: 'event', match: 'signup' },
          { name: 'Thanks page', type: 'path', match: '/thanks/*' },
        ],
        experiments: [{ key: 'hero_cta', name: 'Hero', variants: ['control', 'bold'] }],
      }).expect(200);
      expect(first.body.site.settings).toEqual({
        internalNetworks: ['203.0.113.0/24', '2001:db8::/48'],
        botWindows: [
          {
            from: '2030-01-01T00:00:00.000Z',
            to: '2030-01-01T02:00:00.000Z',
            country: 'DE',
            network: 'AS15169',
            note: 'load test',
          },
        ],
        goals: [
          { id: 'signed-up', name: 'Signed up!', type: 'event', match: 'signup' },
          { id: 'thanks-page', name: 'Thanks page', type: 'path', match: '/thanks/*' },
        ],
        experiments: [{ key: 'hero_cta', name: 'Hero', variants: ['control', 'bold'], status: 'draft' }],
        bot: { mode: 'off', bots: 'allow', rules: [] },
        keptProperties: [],
        scriptFeatures: [],
      });

      // Only internalNetworks named: the rest stays.
      const second = await patch(o, { internalNetworks: ['10.0.0.0/8'] }).expect(200);
      expect(second.body.site.settings).toEqual({ ...first.body.site.settings, internalNetworks: ['10.0.0.0/8'] });

      // An empty list empties just that list.
      const third = await patch(o, { goals: [] }).expect(200);
      expect(third.body.site.settings).toEqual({ ...second.body.site.settings, goals: [] });

      const got = await t.request.get(`/v1/sites/${o.siteId}`).set('Authorization', o.auth).expect(200);
      expect(got.body.site.settings).toEqual(third.body.site.settings);
      const goals = await t.request.get(`/v1/sites/${o.siteId}/goals`).set('Authorization', o.auth).expect(200);
      expect(goals.body).toEqual({ goals: [] });
    });

    it('reads a site stored with empty settings as the defaults', async () => {
      const o = await siteOfNewOwner();
      await t.deps.orm.em.fork().nativeUpdate(Site, { id: o.siteId }, { settings: {} });
      const res = await patch(o, { goals: [{ name: 'A', type: 'event', match: 'a' }] }).expect(200);
      expect(res.body.site.settings).toEqual({
        internalNetworks: [],
        botWindows: [],
        goals: [{ id: 'a', name: 'A', type: 'event', match: 'a' }],
        experiments: [],
        bot: { mode: 'off', bots: 'allow', rules: [] },
        keptProperties: [],
        // A site from before sites chose the parts of their page script keeps every part.
        scriptFeatures: ['events', 'clicks', 'navigation'],
      });
    });

    it('keeps settings.bot, which PATCH cannot change', async () => {
      const o = await siteOfNewOwner();
      const bot = { mode: 'challenge', bots: 'deny', rules: [{ action: 'deny', label: 'no ai', match: { ai: true } }] };
      const em = t.deps.orm.em.fork();
      const row = await em.findOneOrFail(Site, { id: o.siteId });
      await em.nativeUpdate(Site, { id: o.siteId }, { settings: { ...row.settings, bot } });
      const res = await patch(o, { internalNetworks: [] }).expect(200);
      expect(res.body.site.settings.bot).toEqual(bot);
      expectProblem(await patch(o, { bot: { mode: 'off' } }), 400, 'bot');
    });

    // A network written as IPv4 inside IPv6 (as dual-stack logs show it) never matched: addresses arrive as IPv4.
    it('stores an IPv4-mapped network in its IPv4 form', async () => {
      const o = await siteOfNewOwner();
      const res = await patch(o, { internalNetworks: ['::ffff:203.0.113.0/120', '::FFFF:198.51.100.7/128'] }).expect(200);
      expect(res.body.site.settings.internalNetworks).toEqual(['203.0.113.0/24', '198.51.100.7/32']);
    });

    it.each([
      [{ internalNetworks: ['nope'] }, 'internalNetworks[0]', /CIDR/],
      [{ internalNetworks: ['10.0.0.0/8', '10.0.0.0/33'] }, 'internalNetworks[1]', /0 to 32/],
      [{ internalNetworks: ['2001:db8::/129'] }, 'internalNetworks[0]', /0 to 128/],
      [{ internalNetworks: ['300.1.2.3/8'] }, 'internalNetworks[0]', /not an IPv4 or IPv6 address/],
      [{ internalNetworks: ['203.0.113.7'] }, 'internalNetworks[0]', /203\.0\.113\.7\/32/],
      [{ internalNetworks: ['10.0.0.0/x'] }, 'internalNetworks[0]', /CIDR/],
      [{ internalNetworks: ['fe80::1%eth0/64'] }, 'internalNetworks[0]', /not an IPv4 or IPv6/],
      // Every address at once would file all traffic as the team's (and bill none of it).
      [{ internalNetworks: ['0.0.0.0/0'] }, 'internalNetworks[0]', /\/8 or longer/],
      [{ internalNetworks: ['10.0.0.0/8', '::/0'] }, 'internalNetworks[1]', /\/32 or longer/],
      [{ goals: [{ name: 'Paid', type: 'path', match: '/thanks?plan=pro' }] }, 'goals[0].match', /query/],
      [{ goals: [{ name: 'Top', type: 'path', match: '/docs#top' }] }, 'goals[0].match', /fragment/],
      [{ internalNetworks: '10.0.0.0/8' }, 'internalNetworks', /./],
      [{ botWindows: [WINDOW, { from: 'yesterday', to: WINDOW.to }] }, 'botWindows[1].from', /timestamp/],
      [{ botWindows: [WINDOW, { from: WINDOW.to, to: WINDOW.from }] }, 'botWindows[1].from', /earlier than to/],
      [{ botWindows: [{ ...WINDOW, to: WINDOW.from }] }, 'botWindows[0].from', /earlier than to/],
      [{ botWindows: [{ ...WINDOW, to: 'soon' }] }, 'botWindows[0].to', /timestamp/],
      [{ botWindows: [{ ...WINDOW, country: 'DEU' }] }, 'botWindows[0].country', /two-letter/],
      [{ botWindows: [{ ...WINDOW, colour: 'red' }] }, 'botWindows[0].colour', /Remove/],
      [{ botWindows: [{ from: WINDOW.from }] }, 'botWindows[0].to', /required/],
      [{ botWindows: [{ ...WINDOW, network: 'AS99999999999' }] }, 'botWindows[0].network', /AS number up to/],
      [{ botWindows: [{ ...WINDOW, from: '0000-06-01T00:00:00Z' }] }, 'botWindows[0].from', /years 1970 and 9999/],
      [{ goals: [{ name: 'Thanks', type: 'path', match: 'thanks' }] }, 'goals[0].match', /Start a path goal with \//],
      [{ goals: [{ name: 'Blog', type: 'path', match: '/blog/*/x' }] }, 'goals[0].match', /only at the end/],
      [{ goals: [{ name: 'Any', type: 'page', match: '/x' }] }, 'goals[0].type', /event.*path/],
      [{ goals: [{ name: '', type: 'event', match: 'x' }] }, 'goals[0].name', /name/],
      [{ goals: [{ name: '!!!', type: 'event', match: 'x' }] }, 'goals[0].name', /letter or digit/],
      [{ goals: [{ name: 'A', type: 'event', match: '' }] }, 'goals[0].match', /./],
      [
        {
          goals: [
            { name: 'Sign up', type: 'event', match: 'a' },
            { name: 'Buy', type: 'event', match: 'b' },
            { name: 'sign-up', type: 'event', match: 'c' },
          ],
        },
        'goals[2].name',
        /sign-up/,
      ],
      [{ experiments: [{ key: 'hero', variants: ['only'] }] }, 'experiments[0].variants', /at least two/],
      [{ experiments: [{ key: 'hero', variants: ['a', 'a'] }] }, 'experiments[0].variants', /twice/],
      [{ experiments: [{ key: 'hero', variants: 'a,b' }] }, 'experiments[0].variants', /./],
      [{ experiments: [{ key: 'Hero!', variants: ['a', 'b'] }] }, 'experiments[0].key', /lower-case/],
      [{ experiments: [{ key: 'k'.repeat(65), variants: ['a', 'b'] }] }, 'experiments[0].key', /64/],
      [
        { experiments: [{ key: 'hero', variants: ['a', 'b'], status: 'paused' }] },
        'experiments[0].status',
        /draft, running or stopped/,
      ],
      [
        {
          experiments: [
            { key: 'hero', variants: ['a', 'b'] },
            { key: 'hero', variants: ['c', 'd'] },
          ],
        },
        'experiments[1].key',
        /twice/,
      ],
      [{ colour: 'red' }, 'colour', /Remove/],
    ])('refuses %j: 400 %s', async (body, field, title) => {
      const o = await siteOfNewOwner();
      await patch(o, { internalNetworks: ['192.0.2.0/24'] }).expect(200);
      const p = expectProblem(await patch(o, body), 400, field);
      expect(p.title).toMatch(title);
      // Nothing changed.
      const got = await t.request.get(`/v1/sites/${o.siteId}`).set('Authorization', o.auth).expect(200);
      expect(got.body.site.settings.internalNetworks).toEqual(['192.0.2.0/24']);
    });

    it('is idempotent with an Idempotency-Key and needs sites:write', async () => {
      const o = await siteOfNewOwner();
      const send = () =>
        t.request
          .patch(`/v1/sites/${o.siteId}/settings`)
          .set('Authorization', o.auth)
          .set('Idempotency-Key', 'settings-1')
          .send({ goals: [{ name: 'X', type: 'event', match: 'x' }] });
      const a = await send().expect(200);
      const b = await send().expect(200);
      expect(b.headers['idempotent-replayed']).toBe('true');
      expect(b.body).toEqual(a.body);
      const reader = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
      const p = expectProblem(
        await t.request
          .patch(`/v1/sites/${o.siteId}/settings`)
          .set('Authorization', `Bearer ${reader.token}`)
          .send({ goals: [] }),
        403,
      );
      expect(p.title).toMatch(/sites:write/);
    });
  });

  describe('goals', () => {
    it('lists, creates (201, id from the name), refuses a taken id (409), deletes (204) and 404s unknown ones', async () => {
      const o = await siteOfNewOwner();
      const base = `/v1/sites/${o.siteId}/goals`;
      expect((await t.request.get(base).set('Authorization', o.auth).expect(200)).body).toEqual({ goals: [] });

      const created = await t.request
        .post(base)
        .set('Authorization', o.auth)
        .send({ name: 'Newsletter Sign-up', type: 'event', match: 'newsletter' })
        .expect(201);
      expect(created.body).toEqual({
        goal: { id: 'newsletter-sign-up', name: 'Newsletter Sign-up', type: 'event', match: 'newsletter' },
      });
      await t.request
        .post(base)
        .set('Authorization', o.auth)
        .send({ name: 'Pricing', type: 'path', match: '/pricing*' })
        .expect(201);

      const dup = await t.request
        .post(base)
        .set('Authorization', o.auth)
        .send({ name: 'newsletter sign up', type: 'path', match: '/n' });
      expect(expectProblem(dup, 409).title).toMatch(/newsletter-sign-up/);

      expectProblem(
        await t.request.post(base).set('Authorization', o.auth).send({ name: 'Bad', type: 'path', match: 'no-slash' }),
        400,
        'match',
      );
      expectProblem(await t.request.post(base).set('Authorization', o.auth).send({ name: 'Bad', type: 'event' }), 400, 'match');

      const list = await t.request.get(base).set('Authorization', o.auth).expect(200);
      expect(list.body.goals.map((g: { id: string }) => g.id)).toEqual(['newsletter-sign-up', 'pricing']);

      await t.request.delete(`${base}/newsletter-sign-up`).set('Authorization', o.auth).expect(204);
      expectProblem(await t.request.delete(`${base}/newsletter-sign-up`).set('Authorization', o.auth), 404);
      expectProblem(await t.request.delete(`${base}/never-was`).set('Authorization', o.auth), 404);
      const after = await t.request.get(base).set('Authorization', o.auth).expect(200);
      expect(after.body.goals).toEqual([{ id: 'pricing', name: 'Pricing', type: 'path', match: '/pricing*' }]);
    });

    it('a name in another script keeps its letters as the id, which the goal routes and results take', async () => {
      const o = await newOwnerSite(t, { name: 'Scripts', scopes: ['sites:read', 'sites:write', 'analytics:read'] });
      const base = `/v1/sites/${o.siteId}/goals`;
      const add = (name: string) => t.request.post(base).set('Authorization', o.auth).send({ name, type: 'event', match: name });
      // Names with no Latin letter or digit: Russian, Japanese, Hindi (its vowel signs are marks), Arabic.
      const ids = [];
      for (const name of ['Покупка', '購入 完了', 'खरीदारी', 'شراء!']) ids.push((await add(name).expect(201)).body.goal.id);
      expect(ids).toEqual(['покупка', '購入-完了', 'खरीदारी', 'شراء']);
      // Two such names differing in letters are two goals; the same letters in other case are one id (409).
      expectProblem(await add('ПОКУПКА'), 409);
      await add('Продажа').expect(201);
      // Names that fold to Latin keep their ids as before.
      expect((await add('Café Überweisung').expect(201)).body.goal.id).toBe('cafe-uberweisung');
      expectProblem(await add('— ! —'), 400, 'name');

      const results = await t.request.get(`${base}/results`).query({ days: 7 }).set('Authorization', o.auth).expect(200);
      expect(JSON.stringify(results.body)).toContain('покупка');
      await t.request
        .delete(`${base}/${encodeURIComponent('購入-完了')}`)
        .set('Authorization', o.auth)
        .expect(204);
      const list = await t.request.get(base).set('Authorization', o.auth).expect(200);
      expect(list.body.goals.map((g: { id: string }) => g.id)).toEqual([
        'покупка',
        'खरीदारी',
        'شراء',
        'продажа',
        'cafe-uberweisung',
      ]);
    });

    it('parallel creations of different goals are all kept', async () => {
      const o = await siteOfNewOwner();
      const answers = await Promise.all(
        Array.from({ length: 6 }, (_, i) =>
          t.request
            .post(`/v1/sites/${o.siteId}/goals`)
            .set('Authorization', o.auth)
            .send({ name: `Goal ${i}`, type: 'event', match: `e${i}` }),
        ),
      );
      expect(answers.every((r) => r.status === 201)).toBe(true);
      const list = await t.request.get(`/v1/sites/${o.siteId}/goals`).set('Authorization', o.auth).expect(200);
      expect(list.body.goals).toHaveLength(6);
    });

    it('reading needs sites:read only; writing needs sites:write', async () => {
      const o = await siteOfNewOwner();
      const reader = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['sites:read'] });
      const auth = `Bearer ${reader.token}`;
      await t.request.get(`/v1/sites/${o.siteId}/goals`).set('Authorization', auth).expect(200);
      await t.request.get(`/v1/sites/${o.siteId}/experiments`).set('Authorization', auth).expect(200);
      expectProblem(
        await t.request
          .post(`/v1/sites/${o.siteId}/goals`)
          .set('Authorization', auth)
          .send({ name: 'A', type: 'event', match: 'a' }),
        403,
      );
      expectProblem(
        await t.request
          .post(`/v1/sites/${o.siteId}/experiments`)
          .set('Authorization', auth)
          .send({ key: 'a', variants: ['x', 'y'] }),
        403,
      );
    });
  });

  describe('experiments', () => {
    it('lists, creates (201, draft by default), updates, refuses a used key (409), deletes (204), 404s unknown ones', async () => {
      const o = await siteOfNewOwner();
      const base = `/v1/sites/${o.siteId}/experiments`;
      expect((await t.request.get(base).set('Authorization', o.auth).expect(200)).body).toEqual({ experiments: [] });

      const created = await t.request
        .post(base)
        .set('Authorization', o.auth)
        .send({ key: 'hero', name: 'Hero text', variants: ['control', 'short'] })
        .expect(201);
      expect(created.body).toEqual({
        experiment: { key: 'hero', name: 'Hero text', variants: ['control', 'short'], status: 'draft' },
      });
      const running = await t.request
        .post(base)
        .set('Authorization', o.auth)
        .send({ key: 'cta', variants: ['a', 'b', 'c'], status: 'running' })
        .expect(201);
      expect(running.body.experiment).toEqual({ key: 'cta', variants: ['a', 'b', 'c'], status: 'running' });

      expectProblem(
        await t.request
          .post(base)
          .set('Authorization', o.auth)
          .send({ key: 'hero', variants: ['x', 'y'] }),
        409,
      );
      expectProblem(
        await t.request
          .post(base)
          .set('Authorization', o.auth)
          .send({ key: 'new', variants: ['x'] }),
        400,
        'variants',
      );
      expectProblem(
        await t.request
          .post(base)
          .set('Authorization', o.auth)
          .send({ key: 'NEW', variants: ['x', 'y'] }),
        400,
        'key',
      );

      const updated = await t.request.patch(`${base}/hero`).set('Authorization', o.auth).send({ status: 'running' }).expect(200);
      expect(updated.body).toEqual({
        experiment: { key: 'hero', name: 'Hero text', variants: ['control', 'short'], status: 'running' },
      });
      const renamed = await t.request
        .patch(`${base}/hero`)
        .set('Authorization', o.auth)
        .send({ name: null, variants: ['control', 'long'], status: 'stopped' })
        .expect(200);
      expect(renamed.body.experiment).toEqual({ key: 'hero', variants: ['control', 'long'], status: 'stopped' });
      // Any status may follow any other.
      await t.request.patch(`${base}/hero`).set('Authorization', o.auth).send({ status: 'draft' }).expect(200);

      expectProblem(await t.request.patch(`${base}/hero`).set('Authorization', o.auth).send({ status: 'paused' }), 400, 'status');
      expectProblem(
        await t.request
          .patch(`${base}/hero`)
          .set('Authorization', o.auth)
          .send({ variants: ['a', 'a'] }),
        400,
        'variants',
      );
      expectProblem(await t.request.patch(`${base}/nope`).set('Authorization', o.auth).send({ status: 'running' }), 404);

      const list = await t.request.get(base).set('Authorization', o.auth).expect(200);
      expect(list.body.experiments).toEqual([
        { key: 'hero', variants: ['control', 'long'], status: 'draft' },
        { key: 'cta', variants: ['a', 'b', 'c'], status: 'running' },
      ]);
      const site = await t.request.get(`/v1/sites/${o.siteId}`).set('Authorization', o.auth).expect(200);
      expect(site.body.site.settings.experiments).toEqual(list.body.experiments);

      await t.request.delete(`${base}/hero`).set('Authorization', o.auth).expect(204);
      expectProblem(await t.request.delete(`${base}/hero`).set('Authorization', o.auth), 404);
      const after = await t.request.get(base).set('Authorization', o.auth).expect(200);
      expect(after.body.experiments.map((e: { key: string }) => e.key)).toEqual(['cta']);
    });

    it('a settings PATCH with experiments replaces them all', async () => {
      const o = await siteOfNewOwner();
      await t.request
        .post(`/v1/sites/${o.siteId}/experiments`)
        .set('Authorization', o.auth)
        .send({ key: 'old', variants: ['a', 'b'] })
        .expect(201);
      const res = await patch(o, { experiments: [{ key: 'new', variants: ['x', 'y'], status: 'running' }] }).expect(200);
      expect(res.body.site.settings.experiments).toEqual([{ key: 'new', variants: ['x', 'y'], status: 'running' }]);
    });
  });
});
