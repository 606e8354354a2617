import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { useQuery } from '../../../data/useQuery.ts';
import { formatDateTime } from '../../../format.ts';
import { api } from '../../../trpc.ts';
import { CopyButton } from '../parts/CopyButton.tsx';
import { CollectHealthNote } from './CollectHealthNote.tsx';

/** The snippet to paste into every page, whether a page with it has been viewed yet, and what was not stored. */
export function InstallCard({ siteId }: { siteId: string }) {
  const snippet = useQuery(() => api.sites.snippet.query({ id: siteId }));
  const status = useQuery(() => api.sites.installStatus.query({ id: siteId }));
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
      {snippet.problem && <Notice tone="error">{snippet.problem.title}</Notice>}
      {snippet.data && (
        <div className="site-snippet">
          <pre className="site-code">
            <code id="site-snippet">{snippet.data.html}</code>
          </pre>
          <CopyButton value={snippet.data.html} label="Copy snippet" />
        </div>
      )}
      {snippet.loading && !snippet.data && <p className="loading">Loading…</p>}

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
          ) : status.problem ? (
            status.problem.title
          ) : (
            'Checking…'
          )}
        </p>
        <button type="button" className="button button-secondary button-small" onClick={status.reload} disabled={status.loading}>
          {status.loading ? 'Checking…' : 'Refresh'}
        </button>
      </div>
      {status.data && <CollectHealthNote collect={status.data.collect} />}
    </Card>
  );
}
