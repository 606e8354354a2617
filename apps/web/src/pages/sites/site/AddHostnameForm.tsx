import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { Field } from '../../../components/Field.tsx';
import { FormShell } from '../../../components/FormShell.tsx';
import { useForm } from '../../../forms/useForm.ts';
import { useTRPC } from '../../../trpc.ts';
import { useRefreshSite } from '../parts/useRefreshSite.ts';
import type { HostnameDetail } from '../types.ts';
import { DnsRecordTable } from './DnsRecordTable.tsx';

/**
 * Adds a hostname. Proxy mode reveals the origin the proxy forwards to; its answer lists the DNS records
 * to set, shown until dismissed (an ordinary hostname shows its TXT record in the list above).
 */
export function AddHostnameForm({ siteId }: { siteId: string }) {
  const refresh = useRefreshSite(siteId);
  const create = useMutation(useTRPC().hostnames.create.mutationOptions({ onSuccess: refresh }));
  const [proxy, setProxy] = useState(false);
  const [added, setAdded] = useState<HostnameDetail | null>(null);
  const form = useForm({
    name: 'addHostname',
    initial: { hostname: '', origin: '' },
    submit: async (values) => {
      setAdded(null);
      const detail = await create.mutateAsync({
        id: siteId,
        hostname: values.hostname.trim(),
        ...(proxy ? { proxy: true, origin: values.origin.trim() } : {}),
      });
      form.reset();
      setProxy(false);
      if (detail.proxy) setAdded(detail);
    },
  });

  return (
    <div className="site-subsection">
      <h3 className="site-subheading">Add a hostname</h3>
      {added?.proxy && (
        <div className="alert alert-success site-proxy-added" role="status">
          <p>
            <strong>{added.hostname}</strong> is added in proxy mode (status {added.proxy.status}). Set these DNS records so its
            traffic reaches the proxy and its certificate can be issued; it goes live by itself once they are seen:
          </p>
          <DnsRecordTable records={added.proxy.records} label={`DNS records for ${added.hostname} in proxy mode`} />
          <button type="button" className="button button-link" onClick={() => setAdded(null)}>
            Done
          </button>
        </div>
      )}
      <FormShell form={form} submitLabel="Add hostname" busyLabel="Adding…" variant="secondary" label="Add a hostname">
        <Field
          label="Hostname"
          bind={form.field('hostname')}
          hint="Such as www.example.com: no https:// and no path."
          autoCapitalize="none"
          spellCheck={false}
          required
        />
        <label className="site-check">
          <input type="checkbox" name="proxy" checked={proxy} onChange={(e) => setProxy(e.target.checked)} />
          <span>
            Proxy mode
            <span className="site-check-note">
              Serve the hostname through our proxy: the script and its data stay first-party, and bot protection can act on every
              request.
            </span>
          </span>
        </label>
        {proxy && (
          <Field
            label="Origin URL"
            bind={form.field('origin')}
            hint="Where requests are forwarded, such as https://origin.example.com (scheme and host only)."
            type="url"
            inputMode="url"
            autoCapitalize="none"
            spellCheck={false}
            required
          />
        )}
      </FormShell>
    </div>
  );
}
