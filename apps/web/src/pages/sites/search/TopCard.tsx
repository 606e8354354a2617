import { Card } from '../../../components/Card.tsx';
import { formatCount } from '../../../lib/format.ts';
import type { SearchWeeks } from './data.ts';

type Week = SearchWeeks['weeks'][number];
type TopRow = NonNullable<Week['top']>['pages'][number];

function TopTable({ label, rows }: { label: string; rows: TopRow[] }) {
  if (!rows.length) return <p className="muted">{label}: none that week.</p>;
  return (
    <table className="site-table" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">{label.includes('pages') ? 'Page' : 'Query'}</th>
          <th scope="col">Clicks</th>
          <th scope="col">Impressions</th>
        </tr>
      </thead>
      <tbody>
        {rows.map((r) => (
          <tr key={r.key}>
            <th scope="row">{r.key}</th>
            <td>{formatCount(r.clicks)}</td>
            <td>{formatCount(r.impressions)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

/** Each source's ten pages and queries with the most clicks, in its latest week that has them. */
export function TopCard({ data }: { data: SearchWeeks }) {
  const latest = (['primary', 'secondary'] as const)
    .map((source) => [...data.weeks].reverse().find((w) => w.source === source && w.top))
    .filter((w): w is Week => w !== undefined);
  if (!latest.length) return null;
  return (
    <Card title="Top pages and queries">
      {latest.map((w) => {
        const name = w.source === 'primary' ? 'Google' : 'Bing';
        return (
          <div key={w.source} className="site-stack">
            <h3>
              {name}, week of {w.week}
            </h3>
            <TopTable label={`${name} top pages`} rows={w.top?.pages ?? []} />
            <TopTable label={`${name} top queries`} rows={w.top?.queries ?? []} />
          </div>
        );
      })}
    </Card>
  );
}
