// Alert rules over HTTP: what each route refuses (400 naming the field, 401, 403 naming the scope, 404, 409),
// the rule's life (create, read, change, pause, remove), and the deliveries' pages.
import { randomUUID } from 'node:crypto';
import { ALERT_LIMITS, type Scope } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, problemOf } from '../../support/caller.ts';
import { answerConfirmation } from '../../support/report-optin.ts';
import { createToken, createUser, joinAs, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { linkToken } from '../../support/smtp.ts';

describe('alert rules over HTTP', () => {
  let t: TestServer;
  let siteId: string;
  let workspaceId: string;
  let writer: string;
  let reader: string;
  let foreign: string;
  /** The owner's token that may also manage the workspace (taking a rule over is an owner's decision). */
  let ownerAdmin: string;
  const goal = { id: 'signup', name: 'Signup', type: 'event' as const, match: 'signup' };

  const post = (auth: string | null, site: string, body: unknown) => {
    const req = t.request.post(`/v1/sites/${site}/alerts`);
    return (auth ? req.set('Authorization', auth) : req).send(body as object);
  };

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    siteId = (await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name: 'Alerted', settings: { goals: [goal] } }))
      .siteId;
    const token = async (scopes: Parameters<typeof createToken>[1]['scopes']) =>
      `Bearer ${(await createToken(t.deps, { userId: user.id, workspaceId, scopes })).token}`;
    writer = await token(['sites:read', 'sites:write', 'analytics:read']);
    reader = await token(['sites:read', 'analytics:read']);
    ownerAdmin = await token(['sites:read', 'sites:write', 'analytics:read', 'account:admin']);
    const other = await createUser(t.deps);
    foreign = `Bearer ${(await createToken(t.deps, { userId: other.user.id, workspaceId: other.workspace.id, scopes: ['sites:read', 'sites:write', 'analytics:read'] })).token}`;
  });
  afterAll(() => t.close());

  it.each([
    ['an unknown kind', { kind: 'weather', recipients: ['a@example.com'] }, 'kind', /Choose traffic_spike/],
    [
      'a spike without a threshold',
      { kind: 'traffic_spike', recipients: ['a@example.com'] },
      'thresholdPercent',
      /Give thresholdPercent/,
    ],
    [
      'a drop past 100%',
      { kind: 'traffic_drop', thresholdPercent: 150, recipients: ['a@example.com'] },
      'thresholdPercent',
      /at most 100%/,
    ],
    [
      'a threshold of 0',
      { kind: 'traffic_spike', thresholdPercent: 0, recipients: ['a@example.com'] },
      'thresholdPercent',
      /1 or more/,
    ],
    [
      'a goal drop without a goal',
      { kind: 'goal_drop', thresholdPercent: 50, recipients: ['a@example.com'] },
      'goal',
      /name of the goal/,
    ],
    [
      'a goal the site lacks',
      { kind: 'goal_drop', goal: 'Purchase', thresholdPercent: 50, recipients: ['a@example.com'] },
      'goal',
      /No goal named "Purchase"/,
    ],
    ['a rule that tells no one', { kind: 'first_pageview' }, 'recipients', /Give recipients, a webhookUrl or both/],
    ['a bad address', { kind: 'first_pageview', recipients: ['not mail'] }, 'recipients[0]', /e-mail addresses/],
    [
      'an hourly window of weeks',
      { kind: 'first_pageview', window: 'week', recipients: ['a@example.com'] },
      'window',
      /Choose hour or day/,
    ],
    ['a plain http webhook', { kind: 'first_pageview', webhookUrl: 'http://hooks.example.com/x' }, 'webhookUrl', /https/],
    ['an unknown field', { kind: 'first_pageview', recipients: ['a@example.com'], colour: 'red' }, 'colour', /./],
  ])('refuses %s (400 naming the field)', async (_, body, field, title) => {
    const res = await post(writer, siteId, body).expect(400);
    expect(res.body.field).toBe(field);
    expect(res.body.title).toMatch(title);
  });

  it('answers 401 without credentials, 403 naming the scope, 404 for another workspace’s site or an unknown rule', async () => {
    await post(null, siteId, { kind: 'first_pageview', recipients: ['a@example.com'] }).expect(401);
    await t.request.get(`/v1/sites/${siteId}/alerts`).expect(401);
    const refused = await post(reader, siteId, { kind: 'first_pageview', recipients: ['a@example.com'] }).expect(403);
    expect(refused.body.title).toMatch(/sites:write/);
    await post(foreign, siteId, { kind: 'first_pageview', recipients: ['a@example.com'] }).expect(404);
    await t.request.get(`/v1/sites/${siteId}/alerts`).set('Authorization', foreign).expect(404);
    for (const alert of [randomUUID(), 'not-an-id']) {
      await t.request.get(`/v1/sites/${siteId}/alerts/${alert}`).set('Authorization', reader).expect(404);
      await t.request
        .patch(`/v1/sites/${siteId}/alerts/${alert}`)
        .set('Authorization', writer)
        .send({ enabled: false })
        .expect(404);
      await t.request.delete(`/v1/sites/${siteId}/alerts/${alert}`).set('Authorization', writer).expect(404);
      await t.request.get(`/v1/sites/${siteId}/alerts/${alert}/deliveries`).set('Authorization', reader).expect(404);
    }
  });

  it('makes, reads, changes, pauses and removes a rule', async () => {
    const made = await post(writer, siteId, {
      kind: 'goal_drop',
      goal: 'signup',
      thresholdPercent: 40,
      recipients: ['Team@Example.com'],
    }).expect(201);
    expect(made.body).toMatchObject({
      alert: { kind: 'goal_drop', goal: 'signup', thresholdPercent: 40, window: 'day', enabled: true, webhookUrl: null },
      webhookSecret: null,
    });
    expect(made.body.alert.recipients).toEqual([{ address: 'team@example.com', confirmation: 'waiting' }]);
    await answerConfirmation(t, 'team@example.com', 'yes', 'alerts');
    const id = made.body.alert.id as string;
    const read = await t.request.get(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', reader).expect(200);
    expect(read.body.alert.recipients).toEqual([{ address: 'team@example.com', confirmation: 'confirmed' }]);
    const paused = await t.request
      .patch(`/v1/sites/${siteId}/alerts/${id}`)
      .set('Authorization', writer)
      .send({ enabled: false, window: 'hour', thresholdPercent: 30 })
      .expect(200);
    expect(paused.body.alert).toMatchObject({ enabled: false, window: 'hour', thresholdPercent: 30 });
    const bad = await t.request
      .patch(`/v1/sites/${siteId}/alerts/${id}`)
      .set('Authorization', writer)
      .send({ thresholdPercent: 101 })
      .expect(400);
    expect(bad.body.field).toBe('thresholdPercent');
    const deliveries = await t.request
      .get(`/v1/sites/${siteId}/alerts/${id}/deliveries`)
      .set('Authorization', reader)
      .expect(200);
    expect(deliveries.body).toEqual({ deliveries: [], next: null });
    const badCursor = await t.request
      .get(`/v1/sites/${siteId}/alerts/${id}/deliveries`)
      .query({ cursor: 'x' })
      .set('Authorization', reader)
      .expect(400);
    expect(badCursor.body.field).toBe('cursor');
    // A year 0 passed the check, and PostgreSQL refused it (500).
    const yearZero = await t.request
      .get(`/v1/sites/${siteId}/alerts/${id}/deliveries`)
      .query({ cursor: '0000-01-01T00:00:00.000Z_00000000-0000-4000-8000-000000000000' })
      .set('Authorization', reader)
      .expect(400);
    expect(yearZero.body.field).toBe('cursor');
    await t.request.delete(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer).expect(204);
    await t.request.delete(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer).expect(404);
  });

  // The defect: every change re-checked the stored goal, so once it was removed from the site even pausing the rule
  // answered 400 naming `goal`.
  it('changes a rule whose goal was removed from the site; a goal given is still checked', async () => {
    const { siteId: shop } = await createSite(t.deps.orm.em.fork(), {
      workspace: workspaceId,
      name: 'Goal gone',
      settings: { goals: [goal] },
    });
    const made = await post(writer, shop, {
      kind: 'goal_drop',
      goal: 'Signup',
      thresholdPercent: 40,
      webhookUrl: 'https://hooks.example.com/goal',
    }).expect(201);
    await t.deps.orm.em.fork().execute(`update sites set settings = settings || '{"goals": []}'::jsonb where id = ?`, [shop]);
    const patch = (body: object) =>
      t.request.patch(`/v1/sites/${shop}/alerts/${made.body.alert.id}`).set('Authorization', writer).send(body);
    const paused = await patch({ enabled: false }).expect(200);
    expect(paused.body.alert).toMatchObject({ enabled: false, goal: 'Signup' });
    await patch({ thresholdPercent: 60, recipients: ['goal-gone@example.com'], webhookUrl: null }).expect(200);
    const bad = await patch({ goal: 'Purchase' }).expect(400);
    expect(bad.body).toMatchObject({ field: 'goal', title: expect.stringMatching(/No goal named "Purchase"/) });
  });

  it(`keeps at most ${ALERT_LIMITS.perSite} rules per site (409), even when they are added at once`, async () => {
    const { siteId: busy } = await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name: 'Busy' });
    const made = await Promise.all(
      Array.from({ length: ALERT_LIMITS.perSite + 3 }, (_, i) =>
        post(writer, busy, { kind: 'traffic_spike', thresholdPercent: 50 + i, webhookUrl: `https://hooks.example.com/${i}` }),
      ),
    );
    expect(made.filter((r) => r.status === 201)).toHaveLength(ALERT_LIMITS.perSite);
    expect(made.filter((r) => r.status === 409)[0]?.body.title).toMatch(/at most 20 alerts/);
  });

  it('a rule of a member who left is stopped until an owner takes it over (an admin may not)', async () => {
    const colleague = async (role: 'member' | 'admin') => {
      const who = await joinAs(t, workspaceId, role);
      const { token } = await createToken(t.deps, {
        userId: who.user.id,
        workspaceId,
        scopes: ['sites:read', 'sites:write', 'analytics:read', 'account:admin'] satisfies Scope[],
      });
      return { id: who.user.id, auth: `Bearer ${token}` };
    };
    const leaver = await colleague('member');
    const admin = await colleague('admin');
    const made = await post(leaver.auth, siteId, { kind: 'first_pageview', webhookUrl: 'https://hooks.example.com/left' }).expect(
      201,
    );
    const id = made.body.alert.id as string;
    await t.deps.orm.em
      .fork()
      .execute('delete from memberships where user_id = ? and workspace_id = ?', [leaver.id, workspaceId]);
    const listed = await t.request.get(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer).expect(200);
    expect(listed.body.alert.creatorLeft).toBe(true);
    const caller = (auth: string) => callerFor(t.deps, { token: auth.replace(/^Bearer /, '') });
    expect((await problemOf(caller(admin.auth).alerts.takeOver({ id: siteId, alert: id }))).status).toBe(403);
    expect((await caller(ownerAdmin).alerts.takeOver({ id: siteId, alert: id })).alert).toMatchObject({ id, creatorLeft: false });

    // The defect: a rule acted for its maker only, so a member who pointed someone else's rule at their own webhook
    // was still sent the site's figures after being removed.
    const editor = await colleague('member');
    await t.request
      .patch(`/v1/sites/${siteId}/alerts/${id}`)
      .set('Authorization', editor.auth)
      .send({ webhookUrl: 'https://hooks.example.com/mine' })
      .expect(200);
    await t.deps.orm.em
      .fork()
      .execute('delete from memberships where user_id = ? and workspace_id = ?', [editor.id, workspaceId]);
    const after = await t.request.get(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer).expect(200);
    expect(after.body.alert.creatorLeft).toBe(true);
  });

  it('a rule whose maker left is changed by an owner only (409 for others: they would send its figures on in their name)', async () => {
    const leaver = await joinAs(t, workspaceId, 'member');
    const admin = await joinAs(t, workspaceId, 'admin');
    const bearerOf = async (userId: string) =>
      `Bearer ${(await createToken(t.deps, { userId, workspaceId, scopes: ['sites:read', 'sites:write', 'analytics:read'] })).token}`;
    const leaverAuth = await bearerOf(leaver.user.id);
    const adminAuth = await bearerOf(admin.user.id);
    const made = await post(leaverAuth, siteId, {
      kind: 'traffic_spike',
      thresholdPercent: 50,
      webhookUrl: 'https://hooks.example.com/gone',
    });
    const id = made.body.alert.id as string;
    await t.deps.orm.em
      .fork()
      .execute('delete from memberships where user_id = ? and workspace_id = ?', [leaver.user.id, workspaceId]);
    const refused = await t.request
      .patch(`/v1/sites/${siteId}/alerts/${id}`)
      .set('Authorization', adminAuth)
      .send({ thresholdPercent: 30 })
      .expect(409);
    expect(refused.body.title).toMatch(/left the workspace: an owner/);
    const still = await t.request.get(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer).expect(200);
    expect(still.body.alert).toMatchObject({ creatorLeft: true, thresholdPercent: 50 });
    // The admin may still remove it; an owner's change makes it the owner's.
    const changed = await t.request
      .patch(`/v1/sites/${siteId}/alerts/${id}`)
      .set('Authorization', ownerAdmin)
      .send({ thresholdPercent: 30 })
      .expect(200);
    expect(changed.body.alert).toMatchObject({ creatorLeft: false, thresholdPercent: 30 });
    await t.request.delete(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', adminAuth).expect(204);
  });

  it('a rule stays tied to the token that chose where it goes: a change that names no destination does not move it', async () => {
    const { user } = await joinAs(t, workspaceId, 'member');
    const make = (scopes: Scope[]) => createToken(t.deps, { userId: user.id, workspaceId, scopes });
    const chooser = await make(['sites:read', 'sites:write', 'analytics:read']);
    const automation = await make(['sites:read', 'sites:write', 'analytics:read']);
    // Revoking a token needs every scope it holds.
    const revoker = await make(['tokens:read', 'tokens:write', 'sites:read', 'sites:write', 'analytics:read']);
    const rule = async (body: object) =>
      (await post(`Bearer ${chooser.token}`, siteId, { kind: 'traffic_spike', thresholdPercent: 50, ...body }).expect(201)).body
        .alert.id as string;
    const chosen = await rule({ webhookUrl: 'https://hooks.example.com/chosen' });
    const repointed = await rule({ webhookUrl: 'https://hooks.example.com/before' });
    const patch = (id: string, body: object) =>
      t.request
        .patch(`/v1/sites/${siteId}/alerts/${id}`)
        .set('Authorization', `Bearer ${automation.token}`)
        .send(body)
        .expect(200);
    await patch(chosen, { enabled: false });
    await patch(chosen, { enabled: true, thresholdPercent: 40 });
    await patch(repointed, { webhookUrl: 'https://hooks.example.com/after' });
    const exists = async (id: string) =>
      (await t.request.get(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer)).status === 200;

    // Revoking the token that only paused and tuned a rule leaves it; the one that pointed a rule takes that rule.
    await t.request.delete(`/v1/tokens/${automation.id}`).set('Authorization', `Bearer ${revoker.token}`).expect(204);
    expect(await exists(chosen)).toBe(true);
    expect(await exists(repointed)).toBe(false);
    // Revoking the token that chose the first rule's webhook takes it (a leaked token keeps no webhook of its own).
    await t.request.delete(`/v1/tokens/${chooser.id}`).set('Authorization', `Bearer ${revoker.token}`).expect(204);
    expect(await exists(chosen)).toBe(false);
  });

  it('a rule whose every address unsubscribed can still be paused and tuned; a change of destinations still needs one', async () => {
    const made = await post(writer, siteId, {
      kind: 'traffic_spike',
      thresholdPercent: 50,
      recipients: ['gone@example.com'],
    }).expect(201);
    const id = made.body.alert.id as string;
    // The one address took itself off the rule (its e-mail's one-click link).
    await t.deps.orm.em.fork().execute('delete from alert_recipients where alert_id = ?', [id]);
    const patch = (body: object) => t.request.patch(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer).send(body);
    expect((await patch({ enabled: false }).expect(200)).body.alert).toMatchObject({ enabled: false, recipients: [] });
    await patch({ thresholdPercent: 60 }).expect(200);
    expect((await patch({ recipients: [] }).expect(400)).body.field).toBe('recipients');
    await t.request.delete(`/v1/sites/${siteId}/alerts/${id}`).set('Authorization', writer).expect(204);
  });

  it('refuses (409) an address that said no to this workspace’s mail', async () => {
    await post(writer, siteId, { kind: 'first_pageview', recipients: ['nope@example.com'] }).expect(201);
    await answerConfirmation(t, 'nope@example.com', 'no', 'alerts');
    const res = await post(writer, siteId, { kind: 'first_pageview', recipients: ['nope@example.com'] }).expect(409);
    expect(res.body).toMatchObject({ field: 'recipients', title: expect.stringMatching(/asked not to get e-mail/) });
    expect(
      linkToken(await t.smtp.waitFor('nope@example.com', /^Confirm e-mail alerts of Alerted$/), 'confirm-report'),
    ).toBeTruthy();
  });
});
