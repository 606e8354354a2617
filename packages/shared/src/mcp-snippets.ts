// How the common MCP clients connect to this service's MCP endpoint with an API token: one list, shown
// by the dashboard with a new token and in docs/api/mcp.md (a test holds the page to this list).

export interface McpSnippet {
  /** Stable key, for the dashboard's tabs. */
  id: 'claude-code' | 'claude-desktop' | 'cursor' | 'vscode' | 'sdk';
  client: string;
  /** Where the snippet goes, in a few words. */
  where: string;
  language: 'shell' | 'json' | 'ts';
  code: string;
}

/** The name the service goes by in a client's list of servers. */
export const MCP_SERVER_NAME = 'unseen-stats';

const json = (value: unknown) => JSON.stringify(value, null, 2);

/** Connection snippets for `url` (the MCP endpoint) and `token` (an API token, or a placeholder for docs). */
export function mcpClientSnippets(url: string, token: string): McpSnippet[] {
  const bearer = `Bearer ${token}`;
  return [
    {
      id: 'claude-code',
      client: 'Claude Code',
      where: 'Run in a terminal',
      language: 'shell',
      code: `claude mcp add --transport http ${MCP_SERVER_NAME} ${url} --header "Authorization: ${bearer}"`,
    },
    {
      id: 'claude-desktop',
      client: 'Claude Desktop',
      where: 'claude_desktop_config.json (Settings → Developer → Edit Config); needs Node.js for the mcp-remote bridge',
      language: 'json',
      code: json({
        mcpServers: {
          [MCP_SERVER_NAME]: {
            command: 'npx',
            // mcp-remote expands ${AUTH_HEADER} itself: the header's space stays out of the arguments.
            // biome-ignore lint/suspicious/noTemplateCurlyInString: the placeholder is mcp-remote's, not ours
            args: ['-y', 'mcp-remote', url, '--header', 'Authorization:${AUTH_HEADER}'],
            env: { AUTH_HEADER: bearer },
          },
        },
      }),
    },
    {
      id: 'cursor',
      client: 'Cursor',
      where: '~/.cursor/mcp.json, or .cursor/mcp.json in a project',
      language: 'json',
      code: json({ mcpServers: { [MCP_SERVER_NAME]: { url, headers: { Authorization: bearer } } } }),
    },
    {
      id: 'vscode',
      client: 'VS Code',
      where: '.vscode/mcp.json, or MCP: Open User Configuration',
      language: 'json',
      code: json({ servers: { [MCP_SERVER_NAME]: { type: 'http', url, headers: { Authorization: bearer } } } }),
    },
    {
      id: 'sdk',
      client: 'Official SDK (TypeScript)',
      where: 'npm install @modelcontextprotocol/client',
      language: 'ts',
      code: [
        "import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';",
        '',
        `const client = new Client({ name: 'my-agent', version: '1.0.0' });`,
        `await client.connect(new StreamableHTTPClientTransport(new URL('${url}'), {`,
        `  requestInit: { headers: { Authorization: '${bearer}' } },`,
        '}));',
        'const { tools } = await client.listTools();',
        'console.log(tools.map((tool) => tool.name));',
        "console.log(await client.callTool({ name: 'get_me', arguments: {} }));",
      ].join('\n'),
    },
  ];
}
