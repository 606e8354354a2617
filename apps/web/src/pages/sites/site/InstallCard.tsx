import { useQuery } from '@tanstack/react-query';
import { useEffect, useState } from 'react';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { CopyButton } from '../parts/CopyButton.tsx';
import { CollectHealthNote } from './CollectHealthNote.tsx';
import { NeedsPublicKey } from './NeedsPublicKey.tsx';
import { ScriptPartsForm } from './ScriptPartsForm.tsx';

/** How often a visible tab asks whether the first page report has arrived, until it has. */
const WAITING_EVERY_MS = 4_000;

/**
 * The snippet to paste into every page (or, when the site's public key was deleted, that it needs a new
 * one), whether a page with it has been viewed yet, and what was not stored. While nothing has arrived it asks again every few seconds, so "received" shows by itself;
 * `onReceived` runs once when it does (the dashboard then loads its figures).
 */
export function InstallCard({ siteId, onReceived }: { siteId: string; onReceived?: () => void }) {
  const trpc = useTRPC();
  const snippet = useQuery(trpc.sites.snippet.queryOptions({ id: siteId }));
  const status = useQuery({
    ...trpc.sites.installStatus.queryOptions({ id: siteId }),
    refetchInterval: (query) => (query.state.data?.installed ? false : WAITING_EVERY_MS),
    refetchIntervalInBackground: false,
  });
  const installed = status.data?.installed === true;
  // The site's public key was deleted: there is no snippet until a new key is made.
  const needsKey = status.data?.needsPublicKey === true;
  const [waited, setWaited] = useState(false);
  useEffect(() => {
    if (status.data && !status.data.installed) setWaited(true);
    if (status.data?.installed && waited) onReceived?.();
  }, [status.data, waited, onReceived]);

  return (
    <Card
      title="Install"
      aside={
        status.data &&
        (needsKey ? (
          <span className="badge site-badge-wait">Needs a new key</span>
        ) : installed ? (
          <span className="badge badge-ok">Installed</span>
        ) : (
          <span className="badge site-badge-wait">Not installed yet</span>
        ))
      }
    >
      <p className="card-intro">
        Paste this tag into the <code>&lt;head&gt;</code> of every page of the site. It sets no cookies and needs no consent
        banner.
      </p>
      {needsKey && <NeedsPublicKey siteId={siteId} />}
      {snippet.isError && !needsKey && <Notice tone="error">{toProblem(snippet.error).title}</Notice>}
      {snippet.data && !needsKey && (
        <div className="site-snippet">
          <pre className="site-code">
            <code id="site-snippet">{snippet.data.html}</code>
          </pre>
          <CopyButton value={snippet.data.html} label="Copy snippet" />
        </div>
      )}
      {snippet.data && !needsKey && <ScriptPartsForm siteId={siteId} script={snippet.data.script} />}
      {snippet.isPending && <p className="loading">Loading…</p>}

      <div className="site-install-status">
        <p id="install-status" role="status" aria-live="polite">
          {status.data ? (
            installed ? (
              waited ? (
                <>
                  <strong>Received:</strong> the first page report arrived at {formatDateTime(status.data.lastSeenAt)}.
                </>
              ) : (
                <>
                  <strong>Installed</strong>, last seen {formatDateTime(status.data.lastSeenAt)}.
                </>
              )
            ) : (
              <>
                <span className="live-dot live-dot-wait" aria-hidden="true" /> <strong>Waiting for the first pageview…</strong>{' '}
                <span className="muted">Open a page with the snippet in a browser: it shows here within seconds.</span>
              </>
            )
          ) : status.isError ? (
            toProblem(status.error).title
          ) : (
            'Checking…'
          )}
        </p>
        <button
          type="button"
          className="button button-secondary button-small"
          onClick={() => void status.refetch()}
          disabled={status.isFetching}
        >
          {status.isFetching ? 'Checking…' : 'Refresh'}
        </button>
      </div>
      {status.data && <CollectHealthNote collect={status.data.collect} />}
    </Card>
  );
}
