import { describe, expect, it } from 'vitest';
import { modernCall } from '../../api/test/support/mcp-http.ts';
import { createUser } from '../../api/test/support/server.ts';
import { dashboardSuite, signedInPage } from './support/dashboard.ts';

/**
 * A new token's page shows how to connect the common MCP clients, filled in with this service's MCP
 * endpoint and the token itself; what a person copies from it connects, with the scopes they chose.
 */
describe('dashboard: connecting an MCP client with a new token', () => {
  const suite = dashboardSuite();

  it('fills each client’s snippet with the MCP URL and the new token, and the snippet connects', {
    timeout: 120_000,
  }, async () => {
    const { t } = suite;
    const owner = await createUser(t.deps, { workspaceName: 'Connect workspace' });
    const { context, page } = await signedInPage(suite, owner.email);
    await page.goto(`${t.url}/tokens`);
    const form = page.locator('form[name="createToken"]');
    await form.locator('input[name="name"]').fill('Claude');
    await form.locator('input[name="scopes"][value="sites:read"]').check();
    await form.locator('input[name="scopes"][value="analytics:read"]').check();
    await form.getByRole('button', { name: 'Create token' }).click();
    const secret = ((await page.locator('#new-token-secret').textContent()) ?? '').trim();
    expect(secret).toMatch(/^ust_/);

    const mcpUrl = `${t.deps.urls.base}/mcp`;
    const snippet = page.locator('#connect-panel pre');
    const tabs = page.getByRole('tablist', { name: 'MCP clients' }).getByRole('tab');
    // The panel renders just after the secret: wait for its tabs.
    await expect
      .poll(() => tabs.allTextContents())
      .toEqual(['Claude Code', 'Claude Desktop', 'Cursor', 'VS Code', 'Official SDK (TypeScript)']);
    for (const client of await tabs.allTextContents()) {
      await page.getByRole('tab', { name: client }).click();
      await expect.poll(() => page.getByRole('tab', { name: client }).getAttribute('aria-selected')).toBe('true');
      const code = (await snippet.textContent()) ?? '';
      expect(code, client).toContain(mcpUrl);
      expect(code, client).toContain(`Bearer ${secret}`);
    }
    await page.getByRole('tab', { name: 'Claude Code' }).click();
    await expect
      .poll(() => snippet.textContent())
      .toBe(`claude mcp add --transport http unseen-stats ${mcpUrl} --header "Authorization: Bearer ${secret}"`);

    // Cursor's file as shown: its URL and header reach the MCP server, as the token's scopes allow.
    await page.getByRole('tab', { name: 'Cursor' }).click();
    await expect.poll(() => snippet.getAttribute('data-snippet')).toBe('cursor');
    const cursor = JSON.parse((await snippet.textContent()) ?? '') as {
      mcpServers: Record<string, { url: string; headers: { Authorization: string } }>;
    };
    const server = cursor.mcpServers['unseen-stats'];
    expect(server?.url).toBe(mcpUrl);
    const token = server?.headers.Authorization.replace(/^Bearer /, '') ?? '';
    const me = await modernCall(mcpUrl.replace(/\/mcp$/, ''), token, 'tools/call', { name: 'get_me', arguments: {} });
    expect(me.status).toBe(200);
    expect([...me.body.result.structuredContent.scopes].sort()).toEqual(['analytics:read', 'sites:read']);

    // A first REST call, ready to paste; and the snippets go with the secret.
    expect(await page.locator('pre[data-snippet="curl"]').textContent()).toBe(
      `curl -H "Authorization: Bearer ${secret}" ${t.deps.urls.base}/v1/me`,
    );
    await page.getByRole('button', { name: /I have stored it/ }).click();
    await expect.poll(() => page.locator('#connect-panel').count()).toBe(0);
    expect(await page.content()).not.toContain(secret);
    await context.close();
  });
});
