import { createHash } from 'node:crypto';
import { Invite, Membership } from '@us/db';
import type { Plan, Role } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectProblem, mailsTo } from '../../support/auth-helpers.ts';
import {
  createToken,
  createUser,
  joinAs,
  signedInOwner,
  signIn,
  startTestServer,
  type TestServer,
  uniqueEmail,
} from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';
import { linkToken } from '../../support/smtp.ts';

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');
const DAY = 24 * 3600 * 1000;

describe('Invitations: POST /v1/members/invites, DELETE /v1/members/invites/{id}, POST /v1/invites/accept', () => {
  let t: TestServer;
  beforeAll(async () => {
    t = await startTestServer();
  });
  afterAll(() => t.close());

  /** An owner of a new workspace, signed in. */
  const owner = (opts: { plan?: Plan } = {}) => signedInOwner(t, { workspaceName: 'Invite HQ', ...opts });

  const invite = (cookie: string, body: Record<string, unknown>) =>
    t.request.post('/v1/members/invites').set('Cookie', cookie).send(body);

  /** Invites `email`, waits for the e-mail and returns the invite and the link's token. */
  async function inviteAndMail(cookie: string, email: string, role: Role = 'member') {
    const res = await invite(cookie, { email, role }).expect(201);
    const mail = await t.smtp.waitFor(email, /Join/);
    return {
      invite: res.body.invite as { id: string; email: string; role: string },
      token: linkToken(mail, 'accept-invite'),
      mail,
    };
  }

  const accept = (cookie: string, token: string) => t.request.post('/v1/invites/accept').set('Cookie', cookie).send({ token });

  it('invites an address: 201 {invite}, an e-mail with a 7-day link (text and HTML), only its hash stored', async () => {
    const o = await owner();
    const email = uniqueEmail('invitee');
    const before = Date.now();
    const res = await invite(o.cookie, { email, role: 'admin' }).expect(201);
    expect(res.body).toEqual({
      invite: { id: expect.any(String), email, role: 'admin', createdAt: expect.any(String), expiresAt: expect.any(String) },
    });
    const { createdAt, expiresAt } = res.body.invite;
    expect(Date.parse(createdAt)).toBeGreaterThanOrEqual(before - 1000);
    expect(Date.parse(expiresAt) - Date.parse(createdAt)).toBeGreaterThan(7 * DAY - 5000);
    expect(Date.parse(expiresAt) - Date.parse(createdAt)).toBeLessThanOrEqual(7 * DAY + 5000);

    const mail = await t.smtp.waitFor(email, /Join/);
    expect(mail.subject).toContain('Invite HQ');
    expect(mail.text).toContain(`${t.deps.urls.app}/accept-invite?token=`);
    expect(mail.text).toContain(o.email);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    const token = linkToken(mail, 'accept-invite');

    const row = await t.deps.orm.em.fork().findOneOrFail(Invite, { id: res.body.invite.id });
    expect(row.tokenHash).toBe(sha256(token));
    expect(row.tokenHash).not.toContain(token);
    expect(row.invitedBy).toBe(o.user.id);

    const list = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
    expect(list.body.invites).toEqual([res.body.invite]);
    const ws = await t.request.get('/v1/workspace').set('Cookie', o.cookie).expect(200);
    expect(ws.body.usage.members).toBe(2);
  });

  it('is accepted by the invited person, signed in: they join with the invite’s role, once', async () => {
    const o = await owner();
    const email = uniqueEmail('joiner');
    const { token, invite: inv } = await inviteAndMail(o.cookie, email, 'viewer');

    const joiner = await createUser(t.deps, { email });
    const cookie = await signIn(t, email);
    const res = await accept(cookie, token).expect(200);
    expect(res.body).toEqual({ workspaceId: o.workspace.id, role: 'viewer' });

    const me = await t.request.get('/v1/me').set('Cookie', cookie).set('X-Workspace', o.workspace.id).expect(200);
    expect(me.body).toMatchObject({ workspaceId: o.workspace.id, role: 'viewer' });
    expect(me.body.memberships).toContainEqual({ workspaceId: o.workspace.id, name: 'Invite HQ', role: 'viewer', plan: 'Free' });

    const list = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
    expect(list.body.invites).toEqual([]);
    expect(list.body.members).toContainEqual({
      userId: joiner.user.id,
      email,
      role: 'viewer',
      twoFactor: false,
      joinedAt: expect.any(String),
    });

    // Single use: the same link again is 404, and the membership is unchanged.
    expectProblem(await accept(cookie, token), 404);
    // Withdrawing an accepted invitation is 404 too.
    expectProblem(await t.request.delete(`/v1/members/invites/${inv.id}`).set('Cookie', o.cookie), 404);
    const rows = await t.deps.orm.em.fork().find(Membership, { workspace: o.workspace.id });
    expect(rows).toHaveLength(2);
  });

  it('matches the invited address case-insensitively', async () => {
    const o = await owner();
    const email = uniqueEmail('casey');
    const res = await invite(o.cookie, { email: email.toUpperCase(), role: 'member' }).expect(201);
    expect(res.body.invite.email).toBe(email);
    const token = linkToken(await t.smtp.waitFor(email, /Join/), 'accept-invite');
    await createUser(t.deps, { email });
    const acc = await accept(await signIn(t, email), token).expect(200);
    expect(acc.body).toEqual({ workspaceId: o.workspace.id, role: 'member' });
  });

  it('is 404 for another signed-in address, and the invited person can still accept after', async () => {
    const o = await owner();
    const email = uniqueEmail('rightful');
    const { token } = await inviteAndMail(o.cookie, email);
    const stranger = await createUser(t.deps);
    const strangerCookie = await signIn(t, stranger.email);
    const p = expectProblem(await accept(strangerCookie, token), 404);
    expect(p.title).toMatch(/address/);
    expect(await t.deps.orm.em.fork().count(Membership, { workspace: o.workspace.id, user: stranger.user.id })).toBe(0);

    await createUser(t.deps, { email });
    await accept(await signIn(t, email), token).expect(200);
  });

  it('is 404 for an unknown token, and 400 for a missing one', async () => {
    const { email } = await createUser(t.deps);
    const cookie = await signIn(t, email);
    expectProblem(await accept(cookie, 'no-such-invitation-token'), 404);
    expectProblem(await t.request.post('/v1/invites/accept').set('Cookie', cookie).send({}), 400, 'token');
  });

  it('is 404 once expired, and an expired invitation no longer counts or blocks a new one', async () => {
    const o = await owner();
    const email = uniqueEmail('late');
    const { token, invite: inv } = await inviteAndMail(o.cookie, email);
    await t.deps.orm.em.fork().nativeUpdate(Invite, { id: inv.id }, { expiresAt: new Date(Date.now() - 1000) });
    await createUser(t.deps, { email });
    const cookie = await signIn(t, email);
    expectProblem(await accept(cookie, token), 404);
    expect(await t.deps.orm.em.fork().count(Membership, { workspace: o.workspace.id })).toBe(1);

    const list = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
    expect(list.body.invites).toEqual([]);
    expectProblem(await t.request.delete(`/v1/members/invites/${inv.id}`).set('Cookie', o.cookie), 404);
    // Free allows 2: the owner plus a fresh invitation fit, since the expired one does not count.
    await invite(o.cookie, { email, role: 'member' }).expect(201);
  });

  it('refuses API tokens at accept (person only, 403)', async () => {
    const o = await owner();
    const { token } = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['members:write'] });
    const res = await t.request.post('/v1/invites/accept').set('Authorization', `Bearer ${token}`).send({ token: 'x' });
    expectProblem(res, 403);
    expectProblem(await t.request.post('/v1/invites/accept').send({ token: 'x' }), 401);
  });

  describe('the member allowance (pending invitations count)', () => {
    it('Free: owner + one pending invitation = 2, the next is 402; withdrawing frees the seat', async () => {
      const o = await owner();
      const first = await invite(o.cookie, { email: uniqueEmail('seat'), role: 'member' }).expect(201);
      const blocked = uniqueEmail('blocked');
      const p = expectProblem(await invite(o.cookie, { email: blocked, role: 'viewer' }), 402);
      expect(p.title).toMatch(/upgrade/i);
      expect(p.title).toMatch(/withdraw/i);
      expect(await t.deps.orm.em.fork().count(Invite, { workspace: o.workspace.id })).toBe(1);
      expect(mailsTo(t, blocked)).toEqual([]);

      await t.request.delete(`/v1/members/invites/${first.body.invite.id}`).set('Cookie', o.cookie).expect(204);
      const list = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
      expect(list.body.invites).toEqual([]);
      await invite(o.cookie, { email: blocked, role: 'viewer' }).expect(201);
    });

    it('Free: a second member fills the allowance too', async () => {
      const o = await owner();
      await joinAs(t, o.workspace.id, 'viewer');
      expectProblem(await invite(o.cookie, { email: uniqueEmail('full'), role: 'member' }), 402);
    });

    it('Starter allows 5 (members plus invitations), Business has no limit', async () => {
      const o = await owner({ plan: 'Starter' });
      for (let i = 0; i < 4; i++) await invite(o.cookie, { email: uniqueEmail('starter'), role: 'viewer' }).expect(201);
      const p = expectProblem(await invite(o.cookie, { email: uniqueEmail('starter'), role: 'viewer' }), 402);
      expect(p.title).toContain('5');

      const b = await owner({ plan: 'Business' });
      for (let i = 0; i < 6; i++) await invite(b.cookie, { email: uniqueEmail('biz'), role: 'viewer' }).expect(201);
    });
  });

  it('is 409 for an address that is already a member or already has a pending invitation', async () => {
    const o = await owner({ plan: 'Business' });
    const member = await joinAs(t, o.workspace.id, 'member');
    const a = expectProblem(await invite(o.cookie, { email: member.email, role: 'admin' }), 409);
    expect(a.title).toMatch(/already a member/);
    expectProblem(await invite(o.cookie, { email: o.email, role: 'admin' }), 409);

    const email = uniqueEmail('twice');
    await invite(o.cookie, { email, role: 'viewer' }).expect(201);
    const b = expectProblem(await invite(o.cookie, { email: email.toUpperCase(), role: 'admin' }), 409);
    expect(b.title).toMatch(/pending invitation/);
    expect(await t.deps.orm.em.fork().count(Invite, { workspace: o.workspace.id, email })).toBe(1);
  });

  it('refuses a bad address, the owner role, unknown fields (400 with field)', async () => {
    const o = await owner();
    expectProblem(await invite(o.cookie, { email: 'not-an-address', role: 'member' }), 400, 'email');
    expectProblem(await invite(o.cookie, { email: uniqueEmail(), role: 'owner' }), 400, 'role');
    expectProblem(await invite(o.cookie, { email: uniqueEmail() }), 400, 'role');
    expectProblem(await invite(o.cookie, { email: uniqueEmail(), role: 'member', note: 'hi' }), 400, 'note');
  });

  it('needs members:write and an unrestricted token (403); a token with it may invite', async () => {
    const o = await owner({ plan: 'Business' });
    const member = await joinAs(t, o.workspace.id, 'member');
    const r = expectProblem(
      await t.request
        .post('/v1/members/invites')
        .set('Cookie', member.cookie)
        .set('X-Workspace', o.workspace.id)
        .send({ email: uniqueEmail(), role: 'viewer' }),
      403,
    );
    expect(r.title).toContain('members:write');

    const em = t.deps.orm.em.fork();
    const { site } = await createSite(em, { workspace: o.workspace.id, name: 'S' });
    await em.flush();
    const restricted = await createToken(t.deps, {
      userId: o.user.id,
      workspaceId: o.workspace.id,
      scopes: ['members:write'],
      siteIds: [site.id],
    });
    expectProblem(
      await t.request
        .post('/v1/members/invites')
        .set('Authorization', `Bearer ${restricted.token}`)
        .send({ email: uniqueEmail(), role: 'viewer' }),
      403,
    );

    const full = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['members:write'] });
    const email = uniqueEmail('by-token');
    await t.request
      .post('/v1/members/invites')
      .set('Authorization', `Bearer ${full.token}`)
      .send({ email, role: 'viewer' })
      .expect(201);
    const mail = await t.smtp.waitFor(email, /Join/);
    expect(mail.text).toContain(o.email);
  });

  // The attack: an admin (or a leaked token with members:write) invites an address of their own as admin, then is
  // removed (or the token revoked): the invitation was still good for a week, and let them back in.
  it('an invitation is withdrawn when the member who made it is removed, or the token it was made with is revoked', async () => {
    const o = await owner({ plan: 'Business' });
    const admin = await joinAs(t, o.workspace.id, 'admin');
    const byAdmin = uniqueEmail('by-admin');
    await t.request
      .post('/v1/members/invites')
      .set('Cookie', admin.cookie)
      .set('X-Workspace', o.workspace.id)
      .send({ email: byAdmin, role: 'admin' })
      .expect(201);
    const adminLink = linkToken(await t.smtp.waitFor(byAdmin, /Join/), 'accept-invite');
    await t.request.delete(`/v1/members/${admin.user.id}`).set('Cookie', o.cookie).expect(204);

    const leaked = await createToken(t.deps, { userId: o.user.id, workspaceId: o.workspace.id, scopes: ['members:write'] });
    const byToken = uniqueEmail('by-leaked-token');
    await t.request
      .post('/v1/members/invites')
      .set('Authorization', `Bearer ${leaked.token}`)
      .send({ email: byToken, role: 'admin' })
      .expect(201);
    const tokenLink = linkToken(await t.smtp.waitFor(byToken, /Join/), 'accept-invite');
    await t.request.delete(`/v1/tokens/${leaked.id}`).set('Cookie', o.cookie).expect(204);

    for (const [email, link] of [
      [byAdmin, adminLink],
      [byToken, tokenLink],
    ] as const) {
      await createUser(t.deps, { email });
      expectProblem(await accept(await signIn(t, email), link), 404);
    }
    const list = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
    expect(list.body.invites).toEqual([]);
  });

  it('an invitation is withdrawn when the member who made it is demoted to a role that cannot invite', async () => {
    const o = await owner({ plan: 'Business' });
    const admin = await joinAs(t, o.workspace.id, 'admin');
    const invite = async (email: string) => {
      await t.request
        .post('/v1/members/invites')
        .set('Cookie', admin.cookie)
        .set('X-Workspace', o.workspace.id)
        .send({ email, role: 'admin' })
        .expect(201);
      return linkToken(await t.smtp.waitFor(email, /Join/), 'accept-invite');
    };
    const beforeDemotion = uniqueEmail('before-demotion');
    const link = await invite(beforeDemotion);
    await t.request.patch(`/v1/members/${admin.user.id}`).set('Cookie', o.cookie).send({ role: 'viewer' }).expect(200);
    await createUser(t.deps, { email: beforeDemotion });
    expectProblem(await accept(await signIn(t, beforeDemotion), link), 404);
    const list = await t.request.get('/v1/members').set('Cookie', o.cookie).expect(200);
    expect(list.body.invites).toEqual([]);
  });

  it('honours Idempotency-Key: the repeat replays the answer and sends no second e-mail', async () => {
    const o = await owner();
    const email = uniqueEmail('idem');
    const first = await t.request
      .post('/v1/members/invites')
      .set('Cookie', o.cookie)
      .set('Idempotency-Key', 'invite-1')
      .send({ email, role: 'member' })
      .expect(201);
    await t.smtp.waitFor(email, /Join/);
    const again = await t.request
      .post('/v1/members/invites')
      .set('Cookie', o.cookie)
      .set('Idempotency-Key', 'invite-1')
      .send({ email, role: 'member' })
      .expect(201);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.body).toEqual(first.body);
    expect(mailsTo(t, email)).toHaveLength(1);
  });

  describe('DELETE /v1/members/invites/{id}', () => {
    it('withdraws (204); the link then answers 404; a second withdraw is 404', async () => {
      const o = await owner();
      const email = uniqueEmail('withdrawn');
      const { token, invite: inv } = await inviteAndMail(o.cookie, email);
      const res = await t.request.delete(`/v1/members/invites/${inv.id}`).set('Cookie', o.cookie).expect(204);
      expect(res.text).toBe('');
      const row = await t.deps.orm.em.fork().findOneOrFail(Invite, { id: inv.id });
      expect(row.withdrawnAt).toBeInstanceOf(Date);

      await createUser(t.deps, { email });
      expectProblem(await accept(await signIn(t, email), token), 404);
      expectProblem(await t.request.delete(`/v1/members/invites/${inv.id}`).set('Cookie', o.cookie), 404);
    });

    it('is 404 for an unknown id, a malformed one and another workspace’s invitation (left pending)', async () => {
      const o = await owner();
      const other = await owner();
      const { invite: theirs } = await inviteAndMail(other.cookie, uniqueEmail('theirs'));
      expectProblem(await t.request.delete(`/v1/members/invites/${theirs.id}`).set('Cookie', o.cookie), 404);
      expectProblem(
        await t.request.delete('/v1/members/invites/00000000-0000-4000-8000-000000000000').set('Cookie', o.cookie),
        404,
      );
      expectProblem(await t.request.delete('/v1/members/invites/not-a-uuid').set('Cookie', o.cookie), 404);
      const row = await t.deps.orm.em.fork().findOneOrFail(Invite, { id: theirs.id });
      expect(row.withdrawnAt).toBeNull();
    });

    it('needs members:write (403 for a member)', async () => {
      const o = await owner();
      const { invite: inv } = await inviteAndMail(o.cookie, uniqueEmail('kept'));
      const em = t.deps.orm.em.fork();
      const member = await createUser(t.deps);
      em.create(Membership, { workspace: o.workspace.id, user: member.user.id, role: 'member' });
      await em.flush();
      const cookie = await signIn(t, member.email);
      expectProblem(
        await t.request.delete(`/v1/members/invites/${inv.id}`).set('Cookie', cookie).set('X-Workspace', o.workspace.id),
        403,
      );
    });
  });
});
