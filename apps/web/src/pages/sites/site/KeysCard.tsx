import { useQuery } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { IfWritable } from '../../../components/ReadOnly.tsx';
import { latestProblem } from '../../../data/latestProblem.ts';
import { formatDate } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { CopyButton } from '../parts/CopyButton.tsx';
import { NewSecret } from './NewSecret.tsx';
import { useKeyActions } from './useKeyActions.ts';

/**
 * The site's keys: the public key in full (it is in every page), server secrets by prefix only. A new or
 * rotated secret is shown once. Without a public key (deleted), it points to the install card, which makes one.
 */
export function KeysCard({ siteId }: { siteId: string }) {
  const keys = useQuery(useTRPC().siteKeys.list.queryOptions({ id: siteId }));
  const { create, rotate, remove, fresh, dismissFresh } = useKeyActions(siteId);
  const working = create.isPending || rotate.isPending || remove.isPending;
  const rotating = rotate.isPending ? rotate.variables.keyId : null;
  const problem = latestProblem(create, rotate, remove);
  const list = keys.data?.keys ?? [];
  const publicKeys = list.filter((k) => k.kind === 'public');
  const secrets = list.filter((k) => k.kind === 'secret');

  return (
    <Card title="Keys">
      <p className="card-intro">
        The public key goes into your pages with the snippet. Server secrets are for the edge worker SDK (SVC_SECRET) and the
        first-party proxy: keep them on your servers.
      </p>
      {keys.isError && <Notice tone="error">{toProblem(keys.error).title}</Notice>}
      {problem && <Notice tone="error">{problem.title}</Notice>}
      {keys.isPending && <p className="loading">Loading…</p>}

      {/* The install card above says what to do and has the button that makes one: not repeated here. */}
      {keys.data && publicKeys.length === 0 && (
        <p className="site-none">No public key: pages with the snippet are not counted until you create one under Install.</p>
      )}
      {publicKeys.map((k) => (
        <div key={k.id} className="site-key-public">
          <span className="site-key-label">Public key</span>
          <code className="site-key-value" id="site-public-key">
            {k.value}
          </code>
          <span className="site-row-actions">
            {k.value && <CopyButton value={k.value} label="Copy public key" />}
            <ConfirmButton
              label="Rotate"
              name="Rotate public key"
              question="The old key stops at once: pages must get the new snippet, or their views are not counted."
              confirmLabel="Rotate public key"
              busy={rotating === k.id}
              busyLabel="Rotating…"
              disabled={working}
              onConfirm={() => rotate.mutate({ id: siteId, keyId: k.id })}
            />
            <ConfirmButton
              label="Delete"
              name="Delete public key"
              question="It stops at once: pages with the snippet are not counted until you create a new key and replace the snippet."
              confirmLabel="Delete public key"
              busy={remove.isPending && remove.variables.keyId === k.id}
              busyLabel="Deleting…"
              disabled={working}
              onConfirm={() => remove.mutate({ id: siteId, keyId: k.id })}
            />
          </span>
        </div>
      ))}

      {fresh?.value && <NewSecret secret={fresh} onDone={dismissFresh} />}

      <h3 className="site-subheading">Server secrets</h3>
      {keys.data && secrets.length === 0 && <p className="site-none">No server secrets.</p>}
      {secrets.length > 0 && (
        <ul className="site-rows" aria-label="Server secrets">
          {secrets.map((k) => (
            <li key={k.id} className="site-row">
              <span>
                <code className="site-prefix">{k.prefix}…</code>{' '}
                <span className="muted site-small">created {formatDate(k.createdAt)}</span>
              </span>
              <span className="site-row-actions">
                <ConfirmButton
                  label="Rotate"
                  name={`Rotate secret ${k.prefix}`}
                  question="The old secret stops at once: put the new one on your servers straight away."
                  confirmLabel="Rotate secret"
                  busy={rotating === k.id}
                  busyLabel="Working…"
                  disabled={working}
                  onConfirm={() => rotate.mutate({ id: siteId, keyId: k.id })}
                />
                <ConfirmButton
                  label="Delete"
                  name={`Delete secret ${k.prefix}`}
                  question="It stops working at once."
                  confirmLabel="Delete secret"
                  busy={false}
                  disabled={working}
                  onConfirm={() => remove.mutate({ id: siteId, keyId: k.id })}
                />
              </span>
            </li>
          ))}
        </ul>
      )}
      <IfWritable>
        <div className="form-actions site-actions-below">
          <button
            type="button"
            className="button button-secondary"
            onClick={() => create.mutate({ id: siteId, kind: 'secret' })}
            disabled={working}
          >
            {create.isPending ? 'Creating…' : 'Create server secret'}
          </button>
        </div>
      </IfWritable>
    </Card>
  );
}
