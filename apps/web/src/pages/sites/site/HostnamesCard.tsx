import { Card } from '../../../components/Card.tsx';
import { IfWritable, useReadOnly } from '../../../components/ReadOnly.tsx';
import type { Site } from '../types.ts';
import { AddHostnameForm } from './AddHostnameForm.tsx';
import { HostnameItem } from './HostnameItem.tsx';

/** The hostnames the site is served on: each to verify with a DNS record, or served in proxy mode. */
export function HostnamesCard({ site }: { site: Site }) {
  const total = site.hostnames.length;
  const readOnly = useReadOnly();
  const verified = site.hostnames.filter((h) => h.verifiedAt).length;
  return (
    <Card title="Hostnames" aside={total > 0 && <span className="muted">{`${verified} of ${total} verified`}</span>}>
      <p className="card-intro">
        The addresses the site is served on, such as www.example.com. Verify each with a DNS TXT record to prove it is yours: the
        internal link works only on verified hostnames.
      </p>
      {total === 0 ? (
        <p className="site-none">{readOnly ? 'No hostnames yet.' : 'No hostnames yet: add one below.'}</p>
      ) : (
        <ul className="site-hosts">
          {site.hostnames.map((h) => (
            <HostnameItem key={h.hostname} siteId={site.id} host={h} />
          ))}
        </ul>
      )}
      <IfWritable>
        <AddHostnameForm siteId={site.id} />
      </IfWritable>
    </Card>
  );
}
