import { skipToken, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { useReadOnly } from '../../../components/ReadOnly.tsx';
import { latestProblem } from '../../../data/latestProblem.ts';
import { toProblem } from '../../../problem.ts';
import { useTRPC } from '../../../trpc.ts';
import { useRefreshSite } from '../parts/useRefreshSite.ts';
import type { Hostname } from '../types.ts';
import { DnsRecordTable } from './DnsRecordTable.tsx';
import { HostnameBadges } from './HostnameBadges.tsx';

/** What a verification that found nothing says, as a sentence. */
const sentence = (text: string) => (/[.!?]$/.test(text) ? text : `${text}.`);

/**
 * One hostname: its badges; while unverified the exact TXT record to add and a Verify button that says
 * what was found; for proxy mode the records to set, on request; delete after a confirmation.
 */
export function HostnameItem({ siteId, host }: { siteId: string; host: Hostname }) {
  const trpc = useTRPC();
  const readOnly = useReadOnly();
  const queryClient = useQueryClient();
  const refresh = useRefreshSite(siteId);
  const [message, setMessage] = useState<string | null>(null);
  // Proxy mode: the edge's records are fetched once asked for, or once a verification found nothing.
  const [wantRecords, setWantRecords] = useState(false);
  const name = host.hostname;
  const key = { id: siteId, hostname: name };
  const detail = useQuery(trpc.hostnames.get.queryOptions(wantRecords ? key : skipToken));
  const verify = useMutation(
    trpc.hostnames.verify.mutationOptions({
      onMutate: () => setMessage(null),
      onSuccess: (answer) => {
        if (answer.verified) return refresh();
        setMessage(sentence(answer.message ?? 'Not verified yet: check the record, then try again in a few minutes'));
        if (!host.proxy) return;
        // The edge's current view of the records.
        setWantRecords(true);
        return queryClient.invalidateQueries(trpc.hostnames.get.queryFilter(key));
      },
    }),
  );
  const remove = useMutation(trpc.hostnames.delete.mutationOptions({ onSuccess: refresh }));
  const busy = verify.isPending || remove.isPending || detail.isFetching;
  const problem = latestProblem(verify, remove) ?? (detail.isError ? toProblem(detail.error) : null);
  const proxyRecords = detail.data ? (detail.data.proxy?.records ?? []) : null;

  return (
    <li className="site-host" aria-label={name}>
      <div className="site-host-head">
        <span className="site-host-title">
          <strong className="site-host-name">{name}</strong>
          <HostnameBadges host={host} />
        </span>
        <span className="site-host-actions">
          {!host.verifiedAt && !readOnly && (
            <button
              type="button"
              className="button button-primary button-small"
              onClick={() => verify.mutate(key)}
              disabled={busy}
              aria-label={`Verify ${name}`}
            >
              {verify.isPending ? 'Checking…' : 'Verify'}
            </button>
          )}
          <ConfirmButton
            label="Delete"
            name={`Delete ${name}`}
            question={`Remove ${name} from this site?`}
            confirmLabel="Delete hostname"
            busy={remove.isPending}
            busyLabel="Deleting…"
            disabled={busy}
            onConfirm={() => remove.mutate(key)}
          />
        </span>
      </div>

      {host.verification && (
        <div className="site-host-record">
          <p className="site-host-help">
            Add this TXT record at your DNS provider, then click <strong>Verify</strong>. If the provider adds your domain to
            names by itself, leave the domain off the end of the name.
          </p>
          <DnsRecordTable records={[host.verification]} label={`DNS record to add for ${name}`} />
        </div>
      )}

      {host.proxy && !host.verifiedAt && (
        <div className="site-host-record">
          {proxyRecords ? (
            proxyRecords.length > 0 && <DnsRecordTable records={proxyRecords} label={`DNS records for ${name} in proxy mode`} />
          ) : (
            <button type="button" className="button button-link" onClick={() => setWantRecords(true)} disabled={busy}>
              {detail.isFetching ? 'Loading…' : 'Show the DNS records to set'}
            </button>
          )}
        </div>
      )}

      {message && (
        <p className="alert site-alert-warn" role="status">
          {message}
        </p>
      )}
      {problem && (
        <p className="alert alert-error" role="alert">
          {problem.title}
        </p>
      )}
    </li>
  );
}
