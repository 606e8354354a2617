import { useQuery } from '@tanstack/react-query';
import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatDateTime } from '../../../format.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { CopyButton } from '../parts/CopyButton.tsx';
import { CollectHealthNote } from './CollectHealthNote.tsx';

/** The snippet to paste into every page, whether a page with it has been viewed yet, and what was not stored. */
export function InstallCard({ siteId }: { siteId: string }) {
  const trpc = useTRPC();
  const snippet = useQuery(trpc.sites.snippet.queryOptions({ id: siteId }));
  const status = useQuery(trpc.sites.installStatus.queryOptions({ id: siteId }));
  const installed = status.data?.installed === true;

  return (
    <Card
      title="Install"
      aside={
        status.data &&
        (installed ? (
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
      {snippet.isError && <Notice tone="error">{toProblem(snippet.error).title}</Notice>}
      {snippet.data && (
        <div className="site-snippet">
          <pre className="site-code">
            <code id="site-snippet">{snippet.data.html}</code>
          </pre>
          <CopyButton value={snippet.data.html} label="Copy snippet" />
        </div>
      )}
      {snippet.isPending && <p className="loading">Loading…</p>}

      <div className="site-install-status">
        <p id="install-status" role="status" aria-live="polite">
          {status.data ? (
            installed ? (
              <>
                <strong>Installed</strong>, last seen {formatDateTime(status.data.lastSeenAt)}.
              </>
            ) : (
              <>
                <strong>Waiting for the first pageview.</strong>{' '}
                <span className="muted">
                  Open a page with the snippet in a browser, then refresh (it updates within a minute).
                </span>
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
