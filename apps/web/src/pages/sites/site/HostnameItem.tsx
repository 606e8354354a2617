import { useState } from 'react';
import { api } from '../../../trpc.ts';
import { ConfirmButton } from '../../../components/ConfirmButton.tsx';
import { useAction } from '../../../data/useAction.ts';
import type { Hostname, ProxyRecord } from '../types.ts';
import { DnsRecordTable } from './DnsRecordTable.tsx';
import { HostnameBadges } from './HostnameBadges.tsx';

interface Props {
  siteId: string;
  host: Hostname;
  onChanged: () => void;
}

/**
 * One hostname: its badges; while unverified the exact TXT record to add and a Verify button that says
 * what was found; for proxy mode the records to set, on request; delete after a confirmation.
 */
export function HostnameItem({ siteId, host, onChanged }: Props) {
  const action = useAction();
  const [message, setMessage] = useState<string | null>(null);
  const [proxyRecords, setProxyRecords] = useState<ProxyRecord[] | null>(null);
  const name = host.hostname;
  const key = { id: siteId, hostname: name };

  const verify = () =>
    action.run('verify', async () => {
      setMessage(null);
      const answer = await api.hostnames.verify.mutate(key);
      if (answer.verified) onChanged();
      else {
        const text = answer.message ?? 'Not verified yet: check the record, then try again in a few minutes';
        setMessage(/[.!?]$/.test(text) ? text : `${text}.`);
        if (host.proxy) await showProxyRecords();
      }
    });
  const showProxyRecords = async () => {
    const detail = await api.hostnames.get.query(key);
    setProxyRecords(detail.proxy?.records ?? []);
  };
  const remove = () =>
    action.run('delete', async () => {
      await api.hostnames.delete.mutate(key);
      onChanged();
    });

  return (
    <li className="site-host" aria-label={name}>
      <div className="site-host-head">
        <span className="site-host-title">
          <strong className="site-host-name">{name}</strong>
          <HostnameBadges host={host} />
        </span>
        <span className="site-host-actions">
          {!host.verifiedAt && (
            <button
              type="button"
              className="button button-primary button-small"
              onClick={() => void verify()}
              disabled={action.busy !== null}
              aria-label={`Verify ${name}`}
            >
              {action.busy === 'verify' ? 'Checking…' : 'Verify'}
            </button>
          )}
          <ConfirmButton
            label="Delete"
            name={`Delete ${name}`}
            question={`Remove ${name} from this site?`}
            confirmLabel="Delete hostname"
            busy={action.busy === 'delete'}
            busyLabel="Deleting…"
            disabled={action.busy !== null}
            onConfirm={() => void remove()}
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
            <button
              type="button"
              className="button button-link"
              onClick={() => void action.run('records', showProxyRecords)}
              disabled={action.busy !== null}
            >
              {action.busy === 'records' ? 'Loading…' : 'Show the DNS records to set'}
            </button>
          )}
        </div>
      )}

      {message && (
        <p className="alert site-alert-warn" role="status">
          {message}
        </p>
      )}
      {action.error && (
        <p className="alert alert-error" role="alert">
          {action.error}
        </p>
      )}
    </li>
  );
}
