import type { Hostname } from '../types.ts';

/** Verified or not, and proxy mode. */
export function HostnameBadges({ host }: { host: Hostname }) {
  return (
    <span className="site-badges">
      {host.verifiedAt ? (
        <span className="badge badge-ok">Verified</span>
      ) : (
        <span className="badge site-badge-wait">{host.proxy ? 'Pending' : 'Not verified'}</span>
      )}
      {host.proxy && <span className="badge site-badge-proxy">Proxy</span>}
    </span>
  );
}
