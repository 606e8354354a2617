/** Raw JSON-RPC over HTTP against /mcp, for the cases an SDK client would never send. */

export const MODERN = '2026-07-28';
export const LEGACY_VERSIONS = ['2025-03-26', '2025-06-18', '2025-11-25'] as const;

export interface RpcAnswer {
  status: number;
  headers: Headers;
  // biome-ignore lint/suspicious/noExplicitAny: tests read arbitrary JSON-RPC answers
  body: any;
}

/** The 2026-07-28 per-request envelope that goes into `params._meta`. */
export function envelope(version = MODERN) {
  return {
    'io.modelcontextprotocol/protocolVersion': version,
    'io.modelcontextprotocol/clientCapabilities': {},
    'io.modelcontextprotocol/clientInfo': { name: 'unseen-test', version: '1.0.0' },
  };
}

/** POSTs a body to /mcp with the headers a streamable-HTTP client sends. */
export async function postMcp(baseUrl: string, body: unknown, headers: Record<string, string> = {}): Promise<RpcAnswer> {
  const res = await fetch(`${baseUrl}/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: text ? JSON.parse(text) : undefined };
}

/** A 2026-07-28 request: envelope in `_meta`, version, method and (for tools/call) name mirrored in headers. */
export function modernCall(
  baseUrl: string,
  token: string,
  method: string,
  params: Record<string, unknown> = {},
  opts: { id?: number; version?: string; headers?: Record<string, string> } = {},
) {
  const version = opts.version ?? MODERN;
  const headers: Record<string, string> = {
    authorization: `Bearer ${token}`,
    'mcp-protocol-version': version,
    'mcp-method': method,
  };
  if (method === 'tools/call' && typeof params.name === 'string') headers['mcp-name'] = params.name;
  const body = { jsonrpc: '2.0', id: opts.id ?? 1, method, params: { ...params, _meta: envelope(version) } };
  return postMcp(baseUrl, body, { ...headers, ...opts.headers });
}

/** Opens a 2025-era exchange: initialize then notifications/initialized. Returns the answer to initialize. */
export async function legacyInitialize(baseUrl: string, token: string, version: string) {
  const auth = { authorization: `Bearer ${token}` };
  const init = await postMcp(
    baseUrl,
    {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 'unseen-test', version: '1.0.0' } },
    },
    auth,
  );
  // 2025-03-26 clients send no MCP-Protocol-Version header; later ones do after initialize.
  const after: Record<string, string> = version === '2025-03-26' ? { ...auth } : { ...auth, 'mcp-protocol-version': version };
  const ack = await postMcp(baseUrl, { jsonrpc: '2.0', method: 'notifications/initialized' }, after);
  return { init, ack, headers: after };
}
