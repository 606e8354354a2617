import { useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { useQuery } from '../../../data/useQuery.ts';
import { formatDate } from '../../../format.ts';
import { api } from '../../../trpc.ts';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { CopyButton } from '../parts/CopyButton.tsx';
import { useAction } from '../../../data/useAction.ts';
import type { SiteKey } from '../types.ts';
import { NewSecret } from './NewSecret.tsx';

/**
 * The site's keys: the public key in full (it is in every page), server secrets by prefix only. A new or
 * rotated secret is shown once.
 */
export function KeysCard({ siteId, onPublicKeyRotated }: { siteId: string; onPublicKeyRotated: () => void }) {
  const keys = useQuery(() => api.siteKeys.list.query({ id: siteId }));
  const action = useAction();
  const [fresh, setFresh] = useState<SiteKey | null>(null);
  const list = keys.data?.keys ?? [];
  const publicKeys = list.filter((k) => k.kind === 'public');
  const secrets = list.filter((k) => k.kind === 'secret');

  const create = () =>
    action.run('create', async () => {
      setFresh((await api.siteKeys.create.mutate({ id: siteId, kind: 'secret' })).key);
      keys.reload();
    });
  const rotate = (k: SiteKey) =>
    action.run(k.id, async () => {
      const { key } = await api.siteKeys.rotate.mutate({ id: siteId, keyId: k.id });
      if (key.kind === 'secret') setFresh(key);
      else onPublicKeyRotated();
      keys.reload();
    });
  const remove = (k: SiteKey) =>
    action.run(k.id, async () => {
      await api.siteKeys.delete.mutate({ id: siteId, keyId: k.id });
      if (fresh?.id === k.id) setFresh(null);
      keys.reload();
    });

  return (
    <Card title="Keys">
      <p className="card-intro">
        The public key goes into your pages with the snippet. Server secrets are for the edge worker SDK (SVC_SECRET) and the
        first-party proxy: keep them on your servers.
      </p>
      {keys.problem && <Notice tone="error">{keys.problem.title}</Notice>}
      {action.error && <Notice tone="error">{action.error}</Notice>}
      {keys.loading && !keys.data && <p className="loading">Loading…</p>}

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
              busy={action.busy === k.id}
              busyLabel="Rotating…"
              disabled={action.busy !== null}
              onConfirm={() => void rotate(k)}
            />
          </span>
        </div>
      ))}

      {fresh?.value && <NewSecret secret={fresh} onDone={() => setFresh(null)} />}

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
                  busy={action.busy === k.id}
                  busyLabel="Working…"
                  disabled={action.busy !== null}
                  onConfirm={() => void rotate(k)}
                />
                <ConfirmButton
                  label="Delete"
                  name={`Delete secret ${k.prefix}`}
                  question="It stops working at once."
                  confirmLabel="Delete secret"
                  busy={false}
                  disabled={action.busy !== null}
                  onConfirm={() => void remove(k)}
                />
              </span>
            </li>
          ))}
        </ul>
      )}
      <div className="form-actions site-actions-below">
        <button type="button" className="button button-secondary" onClick={() => void create()} disabled={action.busy !== null}>
          {action.busy === 'create' ? 'Creating…' : 'Create server secret'}
        </button>
      </div>
    </Card>
  );
}
