import { insertRows, type PageviewRow, pageviewRow, type RequestRow, requestRow } from '@us/db';
import type { BotSettings } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Actor } from '../../../src/actor/actor.ts';
import { dryRun } from '../../../src/features/protection/dry-run.ts';
import { callerFor, problemOf } from '../../support/caller.ts';
import { createToken, createUser, startTestServer, type TestServer } from '../../support/server.ts';
import { createSite } from '../../support/sites.ts';

/** The Protection page's own procedures (dry run, try a request, AI traffic), called in-process. */

const hoursAgo = (h: number) => new Date(Date.now() - h * 3_600_000);

const PROPOSED: BotSettings = {
  mode: 'challenge',
  bots: 'challenge',
  rules: [
    { action: 'deny', label: 'No AI training', match: { category: 'ai-training' } },
    { action: 'challenge', label: 'Country US', match: { country: 'US' } },
    { action: 'allow', label: 'API', match: { path: '/api' } },
  ],
};

describe('bot tools, called in-process', () => {
  let t: TestServer;
  let caller: ReturnType<typeof callerFor>;
  let botOnly: ReturnType<typeof callerFor>;
  let analyticsOnly: ReturnType<typeof callerFor>;
  let foreign: ReturnType<typeof callerFor>;
  let siteId: string;
  let workspaceId: string;

  beforeAll(async () => {
    t = await startTestServer();
    const { user, workspace } = await createUser(t.deps);
    workspaceId = workspace.id;
    const token = (scopes: Parameters<typeof createToken>[1]['scopes']) =>
      createToken(t.deps, { userId: user.id, workspaceId: workspace.id, scopes }).then((r) => callerFor(t.deps, r));
    caller = await token(['bot:read', 'analytics:read']);
    botOnly = await token(['bot:read']);
    analyticsOnly = await token(['analytics:read']);
    const other = await createUser(t.deps);
    foreign = callerFor(
      t.deps,
      await createToken(t.deps, {
        userId: other.user.id,
        workspaceId: other.workspace.id,
        scopes: ['bot:read', 'analytics:read'],
      }),
    );
    siteId = (
      await createSite(t.deps.orm.em.fork(), {
        workspace: workspace.id,
        settings: {
          bot: { mode: 'challenge', bots: 'allow', rules: [{ action: 'deny', label: 'No admin', match: { path: '/admin' } }] },
        },
      })
    ).siteId;

    // `n` bot requests (the factory's are a browser's) unless `extra` says otherwise.
    const req = (n: number, extra: Partial<RequestRow>, at = hoursAgo(5)): RequestRow[] =>
      Array.from({ length: n }, () => requestRow(siteId, at, { durationMs: 4, lane: 'bot', kind: 'bot', ...extra }));
    await insertRows(t.deps.orm, 'requests', [
      ...req(10, { kind: 'verified-bot', verified: true, botName: 'GPTBot', botCategory: 'ai-training', path: '/blog/a' }),
      ...req(5, { botName: 'GPTBot', botCategory: 'ai-training', path: '/blog/a', asn: 14061, asOrg: 'DigitalOcean, LLC' }),
      ...req(4, { kind: 'verified-bot', verified: true, botName: 'Googlebot', botCategory: 'search-engine', country: 'US' }),
      ...req(3, { kind: 'browser', botName: 'curl', botCategory: 'tool', path: '/api/orders' }),
      ...req(6, { kind: 'browser', lane: 'human', path: '/pricing', country: 'DE', asn: 3320, asOrg: 'Deutsche Telekom AG' }),
      ...req(2, { kind: 'browser', asn: 16509, asOrg: 'Amazon.com, Inc.' }),
      ...req(1, { kind: 'browser', path: '/pricing' }),
      ...req(2, { botName: 'MJ12bot', botCategory: 'seo', path: '/robots.txt' }),
      ...req(2, { kind: 'bot', botName: 'PerplexityBot', botCategory: 'ai-search', verified: true, path: '/blog/a' }),
      // Left out: the team's own requests, and anything older than 7 days.
      ...req(3, { kind: 'browser', lane: 'internal', path: '/admin' }),
      ...req(7, { kind: 'browser', path: '/admin' }, hoursAgo(24 * 9)),
    ]);
    const pv = (path: string, referrerHost: string | null, extra: Partial<PageviewRow> = {}) =>
      pageviewRow(siteId, hoursAgo(3), { path, referrerHost, ...extra });
    await insertRows(t.deps.orm, 'pageviews', [
      pv('/blog/a', 'chatgpt.com'),
      pv('/blog/a', 'www.perplexity.ai'),
      pv('/blog/a', null, { utmSource: 'chatgpt.com' }),
      pv('/pricing', 'claude.ai'),
      pv('/pricing', 'www.google.com'),
      pv('/blog/a', 'chatgpt.com', { lane: 'bot' }),
    ]);
  });
  afterAll(() => t.close());

  describe('tryRequest', () => {
    const ask = (input: Partial<Parameters<typeof caller.botTools.tryRequest>[0]>) =>
      caller.botTools.tryRequest({ id: siteId, userAgent: '', path: '/', ...input });

    it('decides under the saved settings and says how the client was classified', async () => {
      const curl = await ask({ userAgent: 'curl/8.5.0', path: '/pricing' });
      expect(curl).toMatchObject({
        settings: 'saved',
        mode: 'challenge',
        rule: null,
        decision: { action: 'challenge', reason: 'client software never runs page scripts: curl', risk: 50 },
        client: { kind: 'browser', name: 'curl', category: 'tool', automation: ['no-script-client'] },
        network: null,
      });
      const admin = await ask({ userAgent: 'Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0', path: '/admin/users' });
      expect(admin).toMatchObject({
        decision: { action: 'deny', reason: 'rule: No admin' },
        rule: { index: 0, label: 'No admin' },
      });
    });

    it('tells verified crawlers from impostors and follows proposed settings', async () => {
      const ua = 'Mozilla/5.0 (compatible; Googlebot/2.1; +http://www.google.com/bot.html)';
      const real = await ask({ userAgent: ua, country: 'us', verified: true, settings: PROPOSED });
      expect(real).toMatchObject({
        settings: 'proposed',
        rule: null,
        decision: { action: 'allow', reason: 'verified search engine: Googlebot', risk: -1 },
        client: { kind: 'verified-bot', name: 'Googlebot', category: 'search-engine', verifiable: true },
      });
      expect((await ask({ userAgent: ua, verified: false })).decision).toMatchObject({
        action: 'deny',
        reason: 'unverified claim to be Googlebot',
      });
      const gpt = await ask({ userAgent: 'Mozilla/5.0 (compatible; GPTBot/1.2)', settings: PROPOSED });
      expect(gpt.decision).toMatchObject({ action: 'deny', reason: 'rule: No AI training' });
      expect(gpt.client).toMatchObject({ kind: 'bot', ai: true, category: 'ai-training' });
    });

    it('knows hosting networks by number, and block mode never refuses for the network alone', async () => {
      const browser = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 Chrome/130.0 Safari/537.36';
      const out = await ask({ userAgent: browser, asn: 16509, settings: { mode: 'block', bots: 'allow', rules: [] } });
      expect(out.network).toEqual({ asn: 16509, name: 'Amazon AWS', hosting: true });
      expect(out.decision).toMatchObject({
        action: 'allow',
        reason: 'hosting network: AS16509 (the network alone never refuses anyone)',
        risk: 35,
      });
      const passed = await ask({ userAgent: browser, asn: 16509, pass: true });
      expect(passed.decision).toMatchObject({ action: 'allow', reason: 'check passed within the last day' });
    });

    it('names the refused field, and needs bot:read on a site of the workspace', async () => {
      const bad = { ...PROPOSED, rules: [PROPOSED.rules[0], { action: 'deny', match: { country: 'Germany' } }] } as BotSettings;
      expect(await problemOf(ask({ settings: bad }))).toMatchObject({ status: 400, field: 'settings.rules[1].match.country' });
      expect(await problemOf(ask({ path: 'pricing' }))).toMatchObject({ status: 400, field: 'path' });
      expect(await problemOf(ask({ country: 'DEU' }))).toMatchObject({ status: 400, field: 'country' });
      expect(await problemOf(ask({ userAgent: 'x'.repeat(1025) }))).toMatchObject({ status: 400, field: 'userAgent' });
      expect((await botOnly.botTools.tryRequest({ id: siteId, userAgent: '', path: '/' })).decision.action).toBe('allow');
      const denied = await problemOf(analyticsOnly.botTools.tryRequest({ id: siteId, userAgent: '', path: '/' }));
      expect(denied).toMatchObject({ status: 403 });
      expect(denied.title).toContain('bot:read');
      expect(await problemOf(foreign.botTools.tryRequest({ id: siteId, userAgent: '', path: '/' }))).toMatchObject({
        status: 404,
      });
    });
  });

  describe('dryRun', () => {
    it('replays the proposed rules over the last 7 days: totals, per rule, reasons, the saved settings beside', async () => {
      const out = await caller.botTools.dryRun({ id: siteId, ...PROPOSED });
      expect(out).toMatchObject({ mode: 'challenge', requests: 35, replayed: 35, sampled: null, unknownSigns: 1 });
      // GPTBot 15 refused by rule 1; verified Googlebot immune to the country rule; curl allowed by the /api
      // rule; hosting browsers challenged; robots.txt always served; verified PerplexityBot served.
      expect(out.totals).toEqual({ allow: 18, challenge: 2, deny: 15 });
      expect(out.intended).toBeNull();
      expect(out.rules).toEqual([
        {
          index: 0,
          label: 'No AI training',
          action: 'deny',
          matched: 15,
          allow: 0,
          challenge: 0,
          deny: 15,
          examples: [{ client: 'GPTBot (ai-training)', count: 15 }],
        },
        { index: 1, label: 'Country US', action: 'challenge', matched: 0, allow: 0, challenge: 0, deny: 0, examples: [] },
        {
          index: 2,
          label: 'API',
          action: 'allow',
          matched: 3,
          allow: 3,
          challenge: 0,
          deny: 0,
          examples: [{ client: 'curl', count: 3 }],
        },
      ]);
      expect(out.otherwise).toEqual({ allow: 15, challenge: 2, deny: 0 });
      expect(out.reasons[0]).toEqual({ reason: 'rule: No AI training', action: 'deny', count: 15 });
      expect(out.reasons).toContainEqual({ reason: 'verified search engine: Googlebot', action: 'allow', count: 4 });
      expect(out.reasons).toContainEqual({ reason: 'hosting network: AS16509', action: 'challenge', count: 2 });
      expect(out.reasons).toContainEqual({ reason: 'always served: /robots.txt', action: 'allow', count: 2 });
      // Saved: challenge mode, bots allow, /admin refused. The impostor GPTBot is refused either way and
      // hosting browsers challenged; the 10 verified GPTBot requests (allowed) and curl (challenged) change.
      expect(out.saved).toEqual({ allow: 25, challenge: 5, deny: 5 });
      expect(out.changed).toBe(10 + 3);
      expect(out.cannotKnow.join(' ')).toMatch(/Passed checks/);
    });

    it('in log mode allows everything and says what the rules would have done', async () => {
      const out = await caller.botTools.dryRun({ id: siteId, ...PROPOSED, mode: 'log' });
      expect(out.totals).toEqual({ allow: 35, challenge: 0, deny: 0 });
      expect(out.intended).toEqual({ allow: 18, challenge: 2, deny: 15 });
      expect(out.rules[0]).toMatchObject({ matched: 15, deny: 15 });
      expect(out.reasons[0]).toEqual({ reason: 'log: would deny: rule: No AI training', action: 'allow', count: 15 });
    });

    it('says when it replayed only the most common kinds of request', async () => {
      const out = await dryRun(t.deps, t.deps.orm.em.fork(), actorOf(), { id: siteId, ...PROPOSED }, { maxShapes: 2 });
      expect(out.sampled?.note).toMatch(/replayed the 2 most common of \d+ kinds of request/);
      expect(out.replayed).toBe(10 + 6);
      expect(out.requests).toBe(35);
    });

    it('falls back to a sample of the table when the full read is over its time budget', async () => {
      const { siteId: big } = await createSite(t.deps.orm.em.fork(), { workspace: workspaceId });
      await insertRows(t.deps.orm, 'requests', [requestRow(big, hoursAgo(1), { durationMs: 1, lane: 'bot', kind: 'bot' })]);
      await t.deps.orm.em.fork().execute(
        `insert into requests (site_id, day, id, at, method, path, status, duration_ms, lane, kind, bot_name, bot_category, verified, asn)
         select ?, (now() - interval '1 hour')::date, gen_random_uuid(), now() - interval '1 hour', 'GET', '/p/' || g, 200, 1, 'bot', 'bot',
           'bot' || (g % 500), 'seo', false, g % 3000
         from generate_series(1, 300000) g`,
        [big],
      );
      const reads = [
        { rate: 1, ms: 1 },
        { rate: 0.5, ms: 20_000 },
      ];
      const out = await dryRun(t.deps, t.deps.orm.em.fork(), actorOf(), { id: big, ...PROPOSED }, { reads });
      expect(out.sampled?.rate).toBe(0.5);
      expect(out.sampled?.note).toMatch(/read 50% of the stored requests/);
      expect(out.requests).toBeGreaterThan(150_000);
      expect(out.requests).toBeLessThan(450_000);
      const none = [{ rate: 1, ms: 1 }];
      await expect(
        dryRun(t.deps, t.deps.orm.em.fork(), actorOf(), { id: big, ...PROPOSED }, { reads: none }),
      ).rejects.toMatchObject({
        status: 503,
      });
    }, 60_000);

    it('names the refused field like bot.update, and needs analytics:read besides bot:read', async () => {
      const bad = { ...PROPOSED, rules: [{ action: 'deny' as const, match: {} }] };
      expect(await problemOf(caller.botTools.dryRun({ id: siteId, ...bad }))).toMatchObject({
        status: 400,
        field: 'rules[0].match',
      });
      const noAnalytics = await problemOf(botOnly.botTools.dryRun({ id: siteId, ...PROPOSED }));
      expect(noAnalytics).toMatchObject({ status: 403 });
      expect(noAnalytics.title).toContain('analytics:read');
      expect(await problemOf(analyticsOnly.botTools.dryRun({ id: siteId, ...PROPOSED }))).toMatchObject({ status: 403 });
      expect(await problemOf(foreign.botTools.dryRun({ id: siteId, ...PROPOSED }))).toMatchObject({ status: 404 });
    });
  });

  describe('aiTraffic', () => {
    it('puts AI crawlers of each page beside the people AI services sent there', async () => {
      const out = await caller.botTools.aiTraffic({ id: siteId, days: 7 });
      expect(out.totals).toEqual({
        crawls: 17,
        training: 15,
        search: 2,
        assistant: 0,
        referred: { pageviews: 4, visitors: 4, assistant: 3, search: 1 },
      });
      expect(out.crawlers).toEqual([
        { name: 'GPTBot', category: 'ai-training', count: 15 },
        { name: 'PerplexityBot', category: 'ai-search', count: 2 },
      ]);
      expect(out.sources).toEqual([
        { host: 'chatgpt.com', kind: 'assistant', pageviews: 2 },
        { host: 'claude.ai', kind: 'assistant', pageviews: 1 },
        { host: 'perplexity.ai', kind: 'search', pageviews: 1 },
      ]);
      expect(out.pages.map((p) => p.path)).toEqual(['/blog/a', '/pricing']);
      expect(out.pages[0]).toMatchObject({
        crawls: 17,
        training: 15,
        search: 2,
        crawlers: [
          { name: 'GPTBot', category: 'ai-training', count: 15 },
          { name: 'PerplexityBot', category: 'ai-search', count: 2 },
        ],
        referred: { pageviews: 3, visitors: 3, assistant: 2, search: 1 },
      });
      expect(out.pages[1]).toMatchObject({ crawls: 0, crawlers: [], referred: { pageviews: 1, assistant: 1 } });
      expect(out.referrers.assistant).toContain('chatgpt.com');
      expect(out.referrers.search).toContain('perplexity.ai');
      expect(out.truncated).toBe(false);
      expect((await caller.botTools.aiTraffic({ id: siteId, days: 7, limit: 1 })).truncated).toBe(true);
    });

    it('needs both scopes', async () => {
      expect(await problemOf(botOnly.botTools.aiTraffic({ id: siteId }))).toMatchObject({ status: 403 });
      expect(await problemOf(analyticsOnly.botTools.aiTraffic({ id: siteId }))).toMatchObject({ status: 403 });
      expect(await problemOf(caller.botTools.aiTraffic({ id: siteId, days: 91 }))).toMatchObject({ status: 400, field: 'days' });
    });
  });

  /** A token's actor, for calls of the service with options a procedure does not take. */
  function actorOf(): Actor {
    return { type: 'token', token: {} as never, workspaceId, role: null, scopes: ['bot:read', 'analytics:read'], siteIds: null };
  }
});
