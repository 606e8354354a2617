import { useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { version } from '@unseen-stats/edge/package.json';
import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { CopyButton } from '../parts/CopyButton.tsx';
import { NewSecret } from '../site/NewSecret.tsx';
import type { SiteKey } from '../types.ts';
import {
  type EdgeInstallValues,
  installCommand,
  NODE_JS,
  nodeEnv,
  sdkUrl,
  WORKER_JS,
  WRANGLER_SECRET,
  wranglerToml,
} from './edgeInstall.ts';

/** One file or command to copy, captioned with its name. */
function CodeBlock({ id, name, code }: { id: string; name: string; code: string }) {
  return (
    <figure className="edge-install-file">
      <figcaption className="edge-install-name">{name}</figcaption>
      <div className="site-snippet">
        <pre className="site-code">
          <code id={id}>{code}</code>
        </pre>
        <CopyButton value={code} label={`Copy ${name}`} />
      </div>
    </figure>
  );
}

/**
 * How to put the gate in front of the site with the edge SDK (`@unseen-stats/edge`, the service's version):
 * a Cloudflare Workers project or a Node server, filled with the site's public key and collect URL. The server
 * secret goes into the platform's secret store or the server's environment; a secret created here is shown
 * once and filled in until dismissed.
 */
export function EdgeInstallCard({ siteId, siteName }: { siteId: string; siteName: string }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const snippet = useQuery(trpc.sites.snippet.queryOptions({ id: siteId }));
  const keys = useQuery(trpc.siteKeys.list.queryOptions({ id: siteId }));
  const [fresh, setFresh] = useState<SiteKey | null>(null);
  const create = useMutation(
    trpc.siteKeys.create.mutationOptions({
      onSuccess: ({ key }) => {
        setFresh(key);
        return queryClient.invalidateQueries(trpc.siteKeys.list.queryFilter({ id: siteId }));
      },
    }),
  );
  const secrets = (keys.data?.keys ?? []).filter((k) => k.kind === 'secret');

  return (
    <Card title="Install at your edge">
      <p className="card-intro">
        Run the gate in front of your site with the edge SDK, version {version}: it decides each request with these settings
        (serve, check or refuse) and reports it here. Use Cloudflare Workers or a Node server.
      </p>
      {snippet.isPending && <p className="loading">Loading…</p>}
      {snippet.isError && <Notice tone="error">{toProblem(snippet.error).title}</Notice>}
      {snippet.data && (
        <EdgeInstallFiles
          values={{
            siteName,
            siteKey: snippet.data.siteKey,
            collectUrl: snippet.data.collectUrl,
            version,
            newSecret: fresh?.value ?? null,
          }}
          scriptUrl={snippet.data.scriptUrl}
        />
      )}

      <h3 className="site-subheading">The server secret</h3>
      <p>
        The SDK proves it speaks for this site with a server secret (<code>SVC_SECRET</code>): keep it in Workers’ secret store or
        your server’s environment, never in your repository.{' '}
        {secrets.length > 0 ? (
          <>
            This site has {secrets.length === 1 ? 'a server secret' : `${secrets.length} server secrets`} (
            {secrets.map((k) => `${k.prefix}…`).join(', ')}): use one you have stored, or create one for this edge.
          </>
        ) : (
          <>This site has no server secret yet: create one for this edge.</>
        )}
      </p>
      {fresh?.value && <NewSecret secret={fresh} onDone={() => setFresh(null)} />}
      {create.isError && <Notice tone="error">{toProblem(create.error).title}</Notice>}
      <IfWritable>
        <div className="form-actions">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => create.mutate({ id: siteId, kind: 'secret' })}
            disabled={create.isPending}
          >
            {create.isPending ? 'Creating…' : 'Create server secret'}
          </button>
        </div>
      </IfWritable>
    </Card>
  );
}

function EdgeInstallFiles({ values, scriptUrl }: { values: EdgeInstallValues; scriptUrl: string }) {
  return (
    <>
      <h3 className="site-subheading">Cloudflare Workers</h3>
      <CodeBlock id="edge-workers-install" name="Install in the Workers project" code={installCommand(values)} />
      <CodeBlock id="edge-wrangler-toml" name="wrangler.toml" code={wranglerToml(values)} />
      <CodeBlock id="edge-worker-js" name="src/worker.js" code={WORKER_JS} />
      <CodeBlock id="edge-wrangler-secret" name="The server secret (paste it when asked)" code={WRANGLER_SECRET} />

      <h3 className="site-subheading">Node (Express, or node:http)</h3>
      <CodeBlock id="edge-node-install" name="Install in the Node server" code={installCommand(values)} />
      <CodeBlock id="edge-node-env" name=".env (keep it out of version control)" code={nodeEnv(values)} />
      <CodeBlock id="edge-node-js" name="server.js (start it with node --env-file=.env server.js)" code={NODE_JS} />
      <p className="muted site-small">
        Without npm, runtimes that import by URL take the same files from <code>{sdkUrl(scriptUrl, values.version)}</code>.
      </p>
    </>
  );
}
