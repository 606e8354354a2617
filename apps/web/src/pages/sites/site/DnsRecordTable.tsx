import { CopyButton } from '../parts/CopyButton.tsx';

export interface DnsRecord {
  type: string;
  name: string;
  value: string;
  /** Why the record is needed, when there are several (proxy mode). */
  purpose?: string;
}

/** DNS records to set, exactly as the DNS provider asks for them, each name and value with a Copy button. */
export function DnsRecordTable({ records, label }: { records: DnsRecord[]; label: string }) {
  const withPurpose = records.some((r) => r.purpose);
  return (
    <div className="site-table-wrap">
      <table className="site-dns" aria-label={label}>
        <thead>
          <tr>
            <th scope="col">Type</th>
            <th scope="col">Name</th>
            <th scope="col">Value</th>
            {withPurpose && <th scope="col">For</th>}
          </tr>
        </thead>
        <tbody>
          {records.map((r) => (
            <tr key={`${r.type} ${r.name} ${r.value}`}>
              <td>
                <code>{r.type}</code>
              </td>
              <td>
                <span className="site-dns-cell">
                  <code className="site-dns-name">{r.name}</code>
                  <CopyButton value={r.name} label={`Copy ${r.type} record name`} />
                </span>
              </td>
              <td>
                <span className="site-dns-cell">
                  <code className="site-dns-value">{r.value}</code>
                  <CopyButton value={r.value} label={`Copy ${r.type} record value`} />
                </span>
              </td>
              {withPurpose && <td className="muted">{r.purpose}</td>}
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}
