import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { latestProblem } from '../../../data/latestProblem.ts';
import { formatDateTime } from '../../../lib/format.ts';
import { useTRPC } from '../../../trpc.ts';
import { CopyButton } from '../parts/CopyButton.tsx';
import type { InternalLink, Site } from '../types.ts';

/**
 * The internal link: on a verified (or proxy-mode) hostname, valid ten minutes, it marks each browser that
 * opens it as the team's own. Rotating the internal key ends every mark made before.
 */
export function InternalLinkSection({ site }: { site: Site }) {
  const eligible = site.hostnames.filter((h) => h.verifiedAt || h.proxy).map((h) => h.hostname);
  const [hostname, setHostname] = useState(eligible[0] ?? '');
  const [link, setLink] = useState<InternalLink | null>(null);
  const [rotated, setRotated] = useState(false);
  const chosen = eligible.includes(hostname) ? hostname : (eligible[0] ?? '');
  const trpc = useTRPC();
  const create = useMutation(trpc.internalLink.create.mutationOptions({ onMutate: () => setRotated(false), onSuccess: setLink }));
  const rotate = useMutation(
    trpc.internalLink.rotate.mutationOptions({
      onSuccess: () => {
        setLink(null);
        setRotated(true);
      },
    }),
  );
  const busy = create.isPending || rotate.isPending;
  const problem = latestProblem(create, rotate);

  return (
    <section className="site-subsection" aria-labelledby="internal-link-title">
      <h3 className="site-subheading" id="internal-link-title">
        Internal link
      </h3>
      <p className="site-host-help">
        Open the link once in each browser of your team: its visits then count as internal for 90 days, wherever it is.
      </p>
      {eligible.length === 0 ? (
        <p className="site-none">Verify a hostname first: the link lives on a verified hostname of the site.</p>
      ) : (
        <div className="site-inline-form">
          <div className="field">
            <label htmlFor="internal-link-hostname">Hostname</label>
            <select id="internal-link-hostname" value={chosen} onChange={(e) => setHostname(e.target.value)}>
              {eligible.map((h) => (
                <option key={h} value={h}>
                  {h}
                </option>
              ))}
            </select>
          </div>
          <button
            type="button"
            className="button button-primary"
            onClick={() => create.mutate({ id: site.id, hostname: chosen })}
            disabled={busy}
          >
            {create.isPending ? 'Creating…' : 'Create link'}
          </button>
        </div>
      )}
      {link && (
        <div className="site-link-box" role="status">
          <div className="site-secret-row">
            <code id="internal-link-url" className="site-secret-value">
              {link.url}
            </code>
            <CopyButton value={link.url} label="Copy internal link" />
          </div>
          <p className="muted site-small">Valid for 10 minutes, until {formatDateTime(link.expiresAt)}; once per browser.</p>
        </div>
      )}
      {rotated && (
        <p className="site-saved" role="status">
          Rotated: browsers marked before no longer count as internal. Open a new link in each of them.
        </p>
      )}
      {problem && (
        <p className="alert alert-error" role="alert">
          {problem.title}
        </p>
      )}
      <div className="site-actions-below">
        <ConfirmButton
          label="Rotate internal key"
          question="Every browser marked before stops counting as internal, and links not yet opened stop working."
          confirmLabel="Rotate"
          busy={rotate.isPending}
          busyLabel="Rotating…"
          disabled={busy}
          onConfirm={() => rotate.mutate({ id: site.id })}
        />
      </div>
    </section>
  );
}
