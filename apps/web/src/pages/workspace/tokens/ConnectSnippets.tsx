import { useQuery } from '@tanstack/react-query';
import { mcpClientSnippets } from '@us/shared';
import { useState } from 'react';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { CopyButton } from '../../sites/parts/CopyButton.tsx';

/**
 * How to use a new token, filled in with this service's addresses and the token itself: the MCP client
 * of your choice (one tab each), and a first REST call. Shown only with the secret, and gone with it.
 */
export function ConnectSnippets({ token }: { token: string }) {
  const endpoints = useQuery(useTRPC().tokens.endpoints.queryOptions());
  const [selected, setSelected] = useState(0);
  if (endpoints.error) return <Notice tone="error">{toProblem(endpoints.error).title}</Notice>;
  if (!endpoints.data) return <p className="loading">Loading…</p>;
  const { mcpUrl, apiUrl, docsUrl } = endpoints.data;
  const snippets = mcpClientSnippets(mcpUrl, token);
  const snippet = snippets[selected] ?? snippets[0];
  const curl = `curl -H "Authorization: Bearer ${token}" ${apiUrl}/v1/me`;
  return (
    <section className="connect" aria-labelledby="connect-heading">
      <h3 id="connect-heading">Connect an AI tool (MCP)</h3>
      <p>
        MCP endpoint <code>{mcpUrl}</code>. Pick your client; the snippet already holds this token.
      </p>
      <div className="connect-tabs" role="tablist" aria-label="MCP clients">
        {snippets.map((s, i) => (
          <button
            key={s.id}
            id={`connect-tab-${s.id}`}
            type="button"
            role="tab"
            aria-selected={i === selected}
            aria-controls="connect-panel"
            className={`connect-tab${i === selected ? ' connect-tab-on' : ''}`}
            onClick={() => setSelected(i)}
          >
            {s.client}
          </button>
        ))}
      </div>
      {snippet && (
        <div id="connect-panel" role="tabpanel" aria-labelledby={`connect-tab-${snippet.id}`} className="connect-panel">
          <p className="connect-where">{snippet.where}</p>
          <pre className="connect-code" data-snippet={snippet.id}>
            <code>{snippet.code}</code>
          </pre>
          <CopyButton value={snippet.code} label={`Copy the ${snippet.client} snippet`} />
        </div>
      )}
      <h3>Call the REST API</h3>
      <pre className="connect-code" data-snippet="curl">
        <code>{curl}</code>
      </pre>
      <CopyButton value={curl} label="Copy the curl command" />
      <p>
        Every route is described in the <a href={docsUrl}>API reference</a>.
      </p>
    </section>
  );
}
