import { randomUUID } from 'node:crypto';
import { insertRows, type PageviewRow, type RequestRow, Site, SiteHostname } from '@us/db';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import { noteNoReturn } from '../../api/src/features/protection/no-return.ts';
import { createUser } from '../../api/test/support/server.ts';
import { createSite } from '../../api/test/support/sites.ts';
import { dashboardSuite, signInThroughUi } from './support/dashboard.ts';

const SCREENSHOT = '/tmp/e2e-protection.png';
/** Screenshots of single cards, to look at each part closely. */
const CARD_SCREENSHOT = (name: string) => `/tmp/e2e-protection-${name}.png`;
const UI_TIMEOUT = 15_000;

const dayAgo = (n: number) => new Date(Date.now() - n * 86_400_000).toISOString().slice(0, 10);
/** Noon UTC `n` days ago, but never in the future (today's noon may be ahead). */
const at = (n: number) => new Date(Math.min(Date.parse(`${dayAgo(n)}T12:00:00Z`), Date.now() - 60_000));

function requests(siteId: string, n: number, daysAgo: number, extra: Partial<RequestRow>): RequestRow[] {
  return Array.from({ length: n }, () => ({
    siteId,
    at: at(daysAgo),
    method: 'GET',
    path: '/',
    status: 200,
    durationMs: 8,
    lane: 'bot',
    kind: 'bot',
    verified: false,
    ...extra,
  }));
}

function referred(siteId: string, path: string, referrerHost: string): PageviewRow {
  return {
    siteId,
    at: at(1),
    pageviewId: `pv-${randomUUID()}`,
    visitor: `v-${randomUUID()}`,
    sessionStart: true,
    lane: 'human',
    path,
    referrerHost,
    device: 'desktop',
  };
}

/** The rule fieldsets of the editor, in order. */
const rule = (page: Page, n: number) => page.locator('li.rule').nth(n);

describe('protection page: rules, dry run, try a request, decisions and AI traffic in a real browser', () => {
  const suite = dashboardSuite();

  it('edits and saves rules with the server’s message under the refused field, and shows what they would do', {
    timeout: 180_000,
  }, async () => {
    const { t, browser } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Gate workspace' });
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: owner.workspace.id, name: 'Gate shop' });
    // Stored traffic of the last days, as the edge records it (with what the gate decided).
    await insertRows(t.deps.orm, 'requests', [
      ...requests(siteId, 6, 1, {
        botName: 'GPTBot',
        botCategory: 'ai-training',
        kind: 'verified-bot',
        verified: true,
        path: '/blog/hello',
        decision: 'allow',
        reason: 'verified bot: GPTBot',
        risk: -1,
      }),
      ...requests(siteId, 4, 2, {
        botName: 'Googlebot',
        botCategory: 'search-engine',
        kind: 'verified-bot',
        verified: true,
        country: 'US',
        decision: 'allow',
        reason: 'verified search engine: Googlebot',
        risk: -1,
      }),
      ...requests(siteId, 3, 2, {
        kind: 'browser',
        botName: 'curl',
        botCategory: 'tool',
        asn: 16509,
        asOrg: 'Amazon.com, Inc.',
        path: '/api/orders',
        decision: 'challenge',
        reason: 'client software never runs page scripts: curl; hosting network: AS16509',
        risk: 85,
      }),
      ...requests(siteId, 5, 3, {
        kind: 'browser',
        lane: 'human',
        country: 'DE',
        asn: 3320,
        asOrg: 'Deutsche Telekom AG',
        path: '/pricing',
        decision: 'allow',
        reason: 'browser: no sign of automation',
        risk: 0,
      }),
      ...requests(siteId, 2, 3, {
        botName: 'GPTBot',
        botCategory: 'ai-training',
        asn: 14061,
        asOrg: 'DigitalOcean, LLC',
        path: '/blog/hello',
        decision: 'deny',
        reason: 'unverified claim to be GPTBot',
        risk: -1,
      }),
    ]);
    // A hostname not verified yet, and a challenge on a hostname a visitor made up (noted as the decide endpoint does).
    const em = t.deps.orm.em.fork();
    em.create(SiteHostname, { site: siteId, hostname: 'gate-shop.example', verifyToken: 'v'.repeat(64) });
    await em.flush();
    await noteNoReturn(t.deps, siteId, ['made-up.stranger.example']);
    await insertRows(t.deps.orm, 'pageviews', [
      referred(siteId, '/blog/hello', 'chatgpt.com'),
      referred(siteId, '/blog/hello', 'chatgpt.com'),
      referred(siteId, '/blog/hello', 'www.perplexity.ai'),
      referred(siteId, '/pricing', 'www.google.com'),
    ]);

    const context = await browser.newContext({ viewport: { width: 1280, height: 1000 }, timezoneId: 'UTC' });
    const page = await context.newPage();
    page.setDefaultTimeout(UI_TIMEOUT);
    const thirdParty: string[] = [];
    page.on('request', (r) => {
      if (!r.url().startsWith(t.url) && !r.url().startsWith('data:')) thirdParty.push(r.url());
    });
    await page.goto(`${t.url}/login`);
    await signInThroughUi(page, owner.email);
    await page.waitForURL(/\/sites$/);

    // From the site's page to its Protection page.
    await page.goto(`${t.url}/sites/${siteId}`);
    await page.getByRole('link', { name: 'Protection', exact: true }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/protection$`));
    await page.getByRole('heading', { name: 'Gate shop protection', level: 1 }).waitFor();
    // Settings is the tab the page opens on.
    expect(await page.getByRole('tab', { selected: true }).textContent()).toBe('Settings');

    // Setup problems: off, so only the made-up hostname's challenge, counted and never named.
    const problems = page.getByTestId('setup-problems');
    await problems.getByText('1 other hostname (not on this site).').waitFor();
    expect(await problems.textContent()).not.toContain('stranger');
    expect(await problems.getByText(/^Verify hostname/).count()).toBe(0);

    // A new site: off, bots allowed, no rules; each mode says what it does.
    const modes = page.getByRole('group', { name: 'Mode' });
    expect(await modes.getByRole('radio', { name: /^Off/ }).isChecked()).toBe(true);
    await modes.getByText(/the network alone never refuses anyone/).waitFor();
    await page.getByText('No rules: the decision order’s own steps decide.').waitFor();

    // Challenge mode, bots challenged, two rules; the second names a country the API refuses.
    await modes.getByRole('radio', { name: /^Challenge/ }).check();
    await page.getByLabel('Default for bots', { exact: true }).selectOption('challenge');
    await page.getByRole('button', { name: 'Add rule' }).click();
    await rule(page, 0).getByLabel('Action').selectOption('deny');
    await rule(page, 0).getByLabel('Label').fill('No AI training');
    await rule(page, 0).getByRole('checkbox', { name: 'AI training' }).check();
    await page.getByRole('button', { name: 'Add rule' }).click();
    await rule(page, 1).getByLabel('Action').selectOption('challenge');
    await rule(page, 1).getByLabel('Label').fill('Far away');
    await rule(page, 1).getByLabel('Countries').fill('Germany');
    await page.getByText('Unsaved changes').waitFor();
    await page.getByRole('button', { name: 'Save settings' }).click();

    // The message under the very input `rules[1].match.country` names, tied to it and focused.
    const country = rule(page, 1).getByLabel('Countries');
    const error = rule(page, 1).locator('.field-error');
    await error.waitFor();
    expect(await error.textContent()).toBe('Give a two-letter country code such as DE');
    expect(await country.getAttribute('aria-invalid')).toBe('true');
    expect(await country.getAttribute('aria-describedby')).toContain(await error.getAttribute('id'));
    const countryId = await country.getAttribute('id');
    await expect.poll(() => page.evaluate('document.activeElement && document.activeElement.id')).toBe(countryId);
    // Editing the field clears it; the rule moves up and back down.
    await country.fill('CN, RU');
    expect(await error.count()).toBe(0);
    await page.getByRole('button', { name: 'Move Rule 2 (Far away) up' }).click();
    expect(await rule(page, 0).getByLabel('Label').inputValue()).toBe('Far away');
    await page.getByRole('button', { name: 'Move Rule 1 (Far away) down' }).click();
    expect(await rule(page, 1).getByLabel('Label').inputValue()).toBe('Far away');
    await page.getByRole('button', { name: 'Save settings' }).click();
    await page.getByText('Saved: Challenge mode, 2 rules. Edges pick it up within a minute.').waitFor();
    // Challenging now: the unverified hostname is a setup problem, with the fix in words.
    await problems.getByText('Verify hostname gate-shop.example to challenge visitors on it.').waitFor();
    await problems.getByText(/Add the TXT record shown under Hostnames/).waitFor();
    await problems.screenshot({ path: CARD_SCREENSHOT('setup-problems') });
    expect(await page.getByText('Unsaved changes').count()).toBe(0);
    const stored = await t.deps.orm.em.fork().findOneOrFail(Site, { id: siteId });
    expect((stored.settings as { bot: unknown }).bot).toEqual({
      mode: 'challenge',
      bots: 'challenge',
      rules: [
        { action: 'deny', label: 'No AI training', match: { category: 'ai-training' } },
        { action: 'challenge', label: 'Far away', match: { country: ['CN', 'RU'] } },
      ],
    });

    const card = (title: string) =>
      page.locator('section.card', { has: page.getByRole('heading', { name: title, exact: true }) });
    // A third rule, unsaved, for the dry run: let the API through.
    await page.getByRole('button', { name: 'Add rule' }).click();
    await rule(page, 2).getByLabel('Action').selectOption('allow');
    await rule(page, 2).getByLabel('Label').fill('API');
    await rule(page, 2).getByLabel('Paths').fill('/api');
    await page.getByRole('button', { name: 'Dry run the edited settings' }).click();
    const perRule = page.getByRole('table', { name: 'Dry run per rule' });
    await perRule.waitFor();
    const cells = (row: number) => perRule.locator('tbody tr').nth(row).locator('th, td').allTextContents();
    // GPTBot (6 verified + 2 impostors) refused by rule 1; curl let through by rule 3.
    expect(await cells(0)).toEqual(['#1 No AI training', 'Deny', '8', '0', '0', '8', 'GPTBot (ai-training) 8']);
    expect(await cells(1)).toEqual(['#2 Far away', 'Challenge', '0', '0', '0', '0', '—']);
    expect(await cells(2)).toEqual(['#3 API', 'Allow', '3', '3', '0', '0', 'curl 3']);
    await page.getByText('20 requests from').waitFor();
    expect(await rule(page, 0).getByTestId('rule-outcome').textContent()).toBe(
      'Dry run: first match for 8 requests (8 refused).',
    );
    const totals = page.getByRole('table', { name: 'Dry run totals' });
    expect(await totals.locator('tbody tr').first().locator('td').allTextContents()).toEqual(['12', '0', '8']);
    await page.getByRole('table', { name: 'Dry run reasons' }).getByText('verified search engine: Googlebot').waitFor();
    await page.getByText('What the replay cannot know').click();
    await page.getByText(/^Passed checks: no us_pass is stored/).waitFor();
    // Editing after the run says the figures are of an earlier edit.
    await rule(page, 2).getByLabel('Paths').fill('/api, /status');
    await page.getByText('The settings changed since this dry run').waitFor();
    expect(await rule(page, 0).getByTestId('rule-outcome').count()).toBe(0);
    await card('Protection settings').screenshot({ path: CARD_SCREENSHOT('settings') });
    await card('Dry run').screenshot({ path: CARD_SCREENSHOT('dry-run') });

    // Try a request, on its own tab: curl under the edited settings (challenged), GPTBot refused by rule 1.
    await page.getByRole('tab', { name: 'Try a request' }).click();
    await page.waitForURL(new RegExp(`/sites/${siteId}/protection\\?tab=try$`));
    const tryForm = page.locator('form[name="tryRequest"]');
    const answer = page.getByTestId('try-answer');
    await tryForm.getByLabel('Start from an example').selectOption({ label: 'curl from a cloud server' });
    await tryForm.getByLabel('Path').fill('/pricing');
    await tryForm.getByRole('button', { name: 'Decide' }).click();
    await answer.getByText('client software never runs page scripts: curl; hosting network: AS16509').waitFor();
    expect(await answer.locator('.badge').textContent()).toBe('Challenge');
    await answer.getByText('AS16509 Amazon AWS · hosting network').waitFor();
    await answer.getByText('85 of 100').waitFor();
    await tryForm.getByLabel('Start from an example').selectOption({ label: 'GPTBot' });
    await tryForm.getByRole('button', { name: 'Decide' }).click();
    await answer.getByText('rule: No AI training').waitFor();
    await answer.getByText('The edited settings in Challenge mode, rule #1 No AI training').waitFor();
    // A field the API refuses is shown under it.
    await tryForm.getByLabel('Country').fill('X');
    await tryForm.getByRole('button', { name: 'Decide' }).click();
    await tryForm.getByText('Give a two-letter country code such as DE').waitFor();
    expect(await tryForm.getByLabel('Country').getAttribute('aria-invalid')).toBe('true');
    await card('Try a request').screenshot({ path: CARD_SCREENSHOT('try') });

    // The edits are kept while another tab is shown.
    await page.getByRole('tab', { name: 'Settings' }).click();
    expect(await rule(page, 2).getByLabel('Paths').inputValue()).toBe('/api, /status');
    await page.getByText('Unsaved changes').waitFor();

    // The decisions report, on its tab: what the gate did, a line per action over 7 days, by category and reason.
    await page.getByRole('tab', { name: 'Decisions' }).click();
    const decisions = page.getByTestId('decisions');
    await decisions.waitFor();
    const legend = page.getByRole('list', { name: 'Decisions in the period' });
    await expect.poll(() => legend.getByRole('listitem').nth(0).textContent()).toBe('Allow 15');
    expect(await legend.getByRole('listitem').nth(1).textContent()).toBe('Challenge 3');
    expect(await legend.getByRole('listitem').nth(2).textContent()).toBe('Deny 2');
    const chart = page.getByRole('img', { name: /^Decisions per day/ });
    expect(await chart.locator('g.dash-chart-day').count()).toBe(7);
    expect(await chart.locator(`g.dash-chart-day[data-day="${dayAgo(3)}"] title`).textContent()).toContain(
      'Allow 5, Challenge 0, Deny 2',
    );
    const byReason = page.getByRole('table', { name: 'Decisions by reason' });
    await byReason.getByText('unverified claim to be GPTBot').waitFor();
    await page.getByRole('table', { name: 'Decisions by crawler category' }).getByText('AI training').waitFor();
    await card('Decisions').screenshot({ path: CARD_SCREENSHOT('decisions') });
    // The setup problems stay above the tabs.
    await problems.getByText('Verify hostname gate-shop.example to challenge visitors on it.').waitFor();

    // AI traffic, on its tab: the blog post is read by GPTBot and sent people from ChatGPT and Perplexity.
    await page.getByRole('tab', { name: 'AI traffic' }).click();
    const pages = page.getByRole('table', { name: 'AI traffic per page' });
    await pages.waitFor();
    expect(await pages.locator('tbody tr').first().locator('th, td').allTextContents()).toEqual([
      '/blog/hello',
      '8',
      'GPTBot (AI training) 8',
      '3',
      '2 assistants, 1 AI search',
    ]);
    await page.getByRole('table', { name: 'AI services that sent people' }).getByText('chatgpt.com').waitFor();
    await card('AI traffic per page').screenshot({ path: CARD_SCREENSHOT('ai') });
    await page.screenshot({ path: SCREENSHOT, fullPage: true });
    expect(thirdParty).toEqual([]);
    await context.close();
  });
});
