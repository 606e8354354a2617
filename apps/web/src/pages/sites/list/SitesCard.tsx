import { Card } from '../../../components/Card.tsx';
import { Sparkline } from '../../../components/charts/Sparkline.tsx';
import { formatDateTime } from '../../../lib/format.ts';
import { Link } from '../../../router.tsx';
import { useSitesNow, useSparklines } from '../live/useLive.ts';
import type { Site } from '../types.ts';

/** The workspace's sites, each linking to its own page; when there are none, what a site is. */
export function SitesCard({ sites }: { sites: Site[] }) {
  if (sites.length === 0) {
    return (
      <Card title="Your sites">
        <div className="site-empty">
          <p>
            <strong>No sites yet.</strong> A site is one website you measure: it has a public key for the snippet you paste into
            its pages, the hostnames it is served on (verified with a DNS record), and its own goals, experiments and
            internal-traffic settings.
          </p>
          <p className="muted">Create your first site below; the snippet to install comes right after.</p>
        </div>
      </Card>
    );
  }
  return <SitesTable sites={sites} />;
}

/** The sites as a table, with each site's visitors now (kept current while the page is open). */
function SitesTable({ sites }: { sites: Site[] }) {
  const now = useSitesNow();
  const visitors = new Map(now.data?.sites.map((s) => [s.id, s.visitors]) ?? []);
  const lines = new Map(useSparklines().data?.sites.map((s) => [s.id, s]) ?? []);
  return (
    <Card title="Your sites" aside={<span className="muted">{sites.length === 1 ? '1 site' : `${sites.length} sites`}</span>}>
      <div className="site-table-wrap">
        <table className="site-table" aria-label="Sites">
          <thead>
            <tr>
              <th scope="col">Site</th>
              <th scope="col">Last 7 days</th>
              <th scope="col" title="People with a pageview in the last 5 minutes">
                Now
              </th>
              <th scope="col">Time zone</th>
              <th scope="col">Hostnames</th>
              <th scope="col">Snippet</th>
              <th scope="col">
                <span className="site-visually-hidden">Dashboard</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {sites.map((site) => (
              <SiteRow key={site.id} site={site} now={now.isError ? null : visitors.get(site.id)} line={lines.get(site.id)} />
            ))}
          </tbody>
        </table>
      </div>
    </Card>
  );
}

/** `now`: visitors now; undefined while loading, null when the caller may not read analytics. */
function SiteRow({
  site,
  now,
  line,
}: {
  site: Site;
  now: number | null | undefined;
  line: { days: string[]; visitors: number[] } | undefined;
}) {
  const total = site.hostnames.length;
  const verified = site.hostnames.filter((h) => h.verifiedAt).length;
  return (
    <tr>
      <th scope="row" className="site-cell-main">
        <Link to={`/sites/${site.id}`}>{site.name}</Link>
        {total > 0 && (
          <span className="site-cell-note muted">
            {site.hostnames
              .slice(0, 3)
              .map((h) => h.hostname)
              .join(', ')}
            {total > 3 && ` and ${total - 3} more`}
          </span>
        )}
      </th>
      <td className="site-cell-spark">
        {line ? <Sparkline days={line.days} values={line.visitors} label={`People per day on ${site.name}`} /> : null}
      </td>
      <td className="site-cell-now" data-testid="site-now">
        {now === null ? <span className="muted">—</span> : now === undefined ? '…' : `${now} now`}
      </td>
      <td>{site.timezone}</td>
      <td>
        {total === 0 ? (
          <span className="muted">None</span>
        ) : (
          <>
            {total} <span className="muted">· {verified} verified</span>
          </>
        )}
      </td>
      <td>
        {site.lastSeenAt ? (
          <span className="badge badge-ok" title={`Last seen ${formatDateTime(site.lastSeenAt)}`}>
            Installed
          </span>
        ) : (
          <span className="badge">Not installed yet</span>
        )}
      </td>
      <td className="site-cell-dashboard">
        <Link to={`/sites/${site.id}/dashboard`} aria-label={`Dashboard of ${site.name}`}>
          Dashboard
        </Link>
      </td>
    </tr>
  );
}
