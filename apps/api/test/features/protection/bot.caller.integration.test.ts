import type { BotSettings, Scope } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callerFor, problemOf } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** Bot-protection settings through the service-level layer: the rules every face shares, without HTTP. */
describe('bot-protection settings, called in-process', () => {
  let t: TestServer;
  let siteId: string;
  let otherSite: string;
  let ws: { userId: string; workspaceId: string };
  const callerWith = async (scopes: Scope[], siteIds: string[] | null = null) =>
    callerFor(t.deps, { token: (await createToken(t.deps, { ...ws, scopes, siteIds })).token });

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    ws = { userId: user.id, workspaceId: workspace.id };
    const em = t.deps.orm.em.fork();
    siteId = (await createSite(em, { workspace: workspace.id })).siteId;
    otherSite = (await createSite(em, { workspace: workspace.id })).siteId;
  });
  afterAll(() => t.close());

  const valid: BotSettings = {
    mode: 'challenge',
    bots: 'challenge',
    rules: [
      { action: 'allow', label: 'Our monitor', match: { bot: 'UptimeRobot' } },
      { action: 'deny', match: { category: ['ai-training'], ai: true } },
      { action: 'challenge', label: '  Admin  ', match: { path: ['/admin', '/wp-login.php'], country: ['de', 'FR'] } },
      { action: 'deny', match: { asn: 16509, kind: 'browser' } },
    ],
  };

  it('a new site is off, allows declared bots and has no rules', async () => {
    const reader = await callerWith(['bot:read']);
    expect(await reader.bot.get({ id: siteId })).toEqual({ mode: 'off', bots: 'allow', rules: [] });
  });

  it('PUT replaces mode, bots and rules together and answers them as stored', async () => {
    const writer = await callerWith(['bot:read', 'bot:write']);
    const stored = await writer.bot.update({ id: siteId, ...valid });
    expect(stored).toEqual({
      mode: 'challenge',
      bots: 'challenge',
      rules: [
        { action: 'allow', label: 'Our monitor', match: { bot: 'UptimeRobot' } },
        { action: 'deny', match: { category: ['ai-training'], ai: true } },
        { action: 'challenge', label: 'Admin', match: { path: ['/admin', '/wp-login.php'], country: ['DE', 'FR'] } },
        { action: 'deny', match: { asn: 16509, kind: 'browser' } },
      ],
    });
    expect(await writer.bot.get({ id: siteId })).toEqual(stored);
    // Replaces, never merges: fewer rules leave fewer rules.
    expect(await writer.bot.update({ id: siteId, mode: 'log', bots: 'allow', rules: [] })).toEqual({
      mode: 'log',
      bots: 'allow',
      rules: [],
    });
    // The site record shows the same settings.
    const sites = await callerWith(['sites:read']);
    expect((await sites.sites.get({ id: siteId })).site.settings.bot).toEqual({ mode: 'log', bots: 'allow', rules: [] });
  });

  it.each([
    ['an unknown mode', { mode: 'on' }, 'mode'],
    ['an unknown default', { bots: 'maybe' }, 'bots'],
    ['a missing rules list', { rules: undefined }, 'rules'],
    ['an empty match', { rules: [{ action: 'deny', match: {} }] }, 'rules[0].match'],
    ['a match of only undefined fields', { rules: [{ action: 'deny', match: { bot: undefined } }] }, 'rules[0].match'],
    ['an unknown action', { rules: [{ action: 'block', match: { bot: 'x' } }] }, 'rules[0].action'],
    [
      'an unknown category',
      { rules: [valid.rules[0], { action: 'deny', match: { category: 'robots' } }] },
      'rules[1].match.category',
    ],
    [
      'an unknown category in a list',
      { rules: [{ action: 'deny', match: { category: ['seo', 'robots'] } }] },
      'rules[0].match.category[1]',
    ],
    ['a negative AS number', { rules: [{ action: 'deny', match: { asn: -1 } }] }, 'rules[0].match.asn'],
    ['an AS number as text in a list', { rules: [{ action: 'deny', match: { asn: [13335, 'AS1'] } }] }, 'rules[0].match.asn[1]'],
    ['an AS number past 32 bits', { rules: [{ action: 'deny', match: { asn: 4_294_967_296 } }] }, 'rules[0].match.asn'],
    ['a fractional AS number', { rules: [{ action: 'deny', match: { asn: 1.5 } }] }, 'rules[0].match.asn'],
    ['a country name', { rules: [{ action: 'deny', match: { country: 'Germany' } }] }, 'rules[0].match.country'],
    [
      'a country list with a bad entry',
      { rules: [{ action: 'deny', match: { country: ['DE', 'D'] } }] },
      'rules[0].match.country[1]',
    ],
    ['a path without its slash', { rules: [{ action: 'deny', match: { path: 'admin' } }] }, 'rules[0].match.path'],
    ['an empty path list', { rules: [{ action: 'deny', match: { path: [] } }] }, 'rules[0].match.path'],
    ['an unknown kind', { rules: [{ action: 'deny', match: { kind: 'human' } }] }, 'rules[0].match.kind'],
    ['an unknown match field', { rules: [{ action: 'deny', match: { ip: '1.2.3.4' } }] }, 'rules[0].match.ip'],
    ['an unknown rule field', { rules: [{ action: 'deny', match: { bot: 'x' }, note: 'x' }] }, 'rules[0].note'],
    ['an empty label', { rules: [{ action: 'deny', label: '  ', match: { bot: 'x' } }] }, 'rules[0].label'],
    ['a label too long', { rules: [{ action: 'deny', label: 'x'.repeat(81), match: { bot: 'x' } }] }, 'rules[0].label'],
    ['an empty bot name', { rules: [{ action: 'deny', match: { bot: '' } }] }, 'rules[0].match.bot'],
    [
      'a 51-item list',
      { rules: [{ action: 'deny', match: { bot: Array.from({ length: 51 }, (_, i) => `b${i}`) } }] },
      'rules[0].match.bot',
    ],
    ['101 rules', { rules: Array.from({ length: 101 }, () => ({ action: 'deny', match: { bot: 'x' } })) }, 'rules'],
    ['a NUL in a label', { rules: [{ action: 'deny', label: 'a\u0000b', match: { bot: 'x' } }] }, 'rules[0].label'],
  ])('refuses %s with 400 naming %s, and changes nothing', async (_what, change, field) => {
    const writer = await callerWith(['bot:read', 'bot:write']);
    const before = await writer.bot.get({ id: otherSite });
    const problem = await problemOf(writer.bot.update({ id: otherSite, ...valid, ...change } as never));
    expect(problem).toMatchObject({ status: 400, field });
    expect(problem.title.length).toBeGreaterThan(10);
    expect(await writer.bot.get({ id: otherSite })).toEqual(before);
  });

  it('needs bot:read to read and bot:write to change (403 naming the scope)', async () => {
    const noBot = await callerWith(['sites:read', 'sites:write', 'analytics:read']);
    expect(await problemOf(noBot.bot.get({ id: siteId }))).toMatchObject({
      status: 403,
      title: expect.stringContaining('bot:read'),
    });
    const reader = await callerWith(['bot:read']);
    expect(await problemOf(reader.bot.update({ id: siteId, ...valid }))).toMatchObject({
      status: 403,
      title: expect.stringContaining('bot:write'),
    });
  });

  it('another workspace’s site, a made-up id and a site outside a token’s restriction are all 404', async () => {
    const { user, workspace } = await createUser(t.deps);
    const foreign = callerFor(t.deps, {
      token: (await createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes: ['bot:read', 'bot:write'] })).token,
    });
    expect(await problemOf(foreign.bot.get({ id: siteId }))).toMatchObject({ status: 404 });
    expect(await problemOf(foreign.bot.update({ id: siteId, ...valid }))).toMatchObject({ status: 404 });
    const restricted = await callerWith(['bot:read', 'bot:write'], [otherSite]);
    expect(await problemOf(restricted.bot.get({ id: siteId }))).toMatchObject({ status: 404 });
    expect(await problemOf(restricted.bot.get({ id: '00000000-0000-4000-8000-000000000000' }))).toMatchObject({ status: 404 });
  });

  it('the decisions report needs analytics:read besides bot:read (403 naming it)', async () => {
    const botOnly = await callerWith(['bot:read']);
    const problem = await problemOf(botOnly.bot.decisions({ id: siteId, days: 7 }));
    expect(problem).toMatchObject({ status: 403 });
    expect(problem.title).toContain('analytics:read');
    const analyticsOnly = await callerWith(['analytics:read']);
    expect(await problemOf(analyticsOnly.bot.decisions({ id: siteId, days: 7 }))).toMatchObject({
      status: 403,
      title: expect.stringContaining('bot:read'),
    });
    const both = await callerWith(['bot:read', 'analytics:read']);
    const empty = await both.bot.decisions({ id: siteId, days: 3 });
    expect(empty.totals).toEqual({ allow: 0, challenge: 0, deny: 0, total: 0 });
    expect(empty.series).toHaveLength(3);
    expect(empty.rows).toEqual([]);
    expect(await problemOf(both.bot.decisions({ id: siteId, days: 91 }))).toMatchObject({ status: 400, field: 'days' });
    expect(await problemOf(both.bot.decisions({ id: siteId, days: 0 }))).toMatchObject({ status: 400, field: 'days' });
  });

  it('bumps the collectors’ site generation after a change, as sites:write operations do', async () => {
    const writer = await callerWith(['bot:read', 'bot:write']);
    const before = Number((await t.deps.hot.get('sites:generation')) ?? 0);
    await writer.bot.update({ id: siteId, mode: 'block', bots: 'deny', rules: [] });
    expect(Number(await t.deps.hot.get('sites:generation'))).toBeGreaterThan(before);
    // A refused change bumps nothing.
    const after = Number(await t.deps.hot.get('sites:generation'));
    await problemOf(writer.bot.update({ id: siteId, mode: 'on' } as never));
    expect(Number(await t.deps.hot.get('sites:generation'))).toBe(after);
  });
});
