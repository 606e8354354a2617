import { Card } from '../../../components/Card.tsx';
import { formatCount, formatHundredths, formatPercent } from '../../../lib/format.ts';
import type { Journeys } from './data.ts';

/** The most common paths, each with every goal's rate and lift over the site's rate. */
export function PathsCard({ journeys }: { journeys: Journeys }) {
  const { paths, goals } = journeys;
  return (
    <Card title="Common paths">
      <p className="card-intro">
        Paths taken by at least 5 sessions. Lift is a path’s goal rate over the rate of all visits: ×2 converts twice as often.
      </p>
      {paths.length === 0 ? (
        <p className="site-none">No path was taken by 5 sessions or more yet: choose a longer period or the section zoom.</p>
      ) : (
        <div className="site-table-wrap">
          <table className="site-table" aria-label="Common paths">
            <thead>
              <tr>
                <th scope="col">Path</th>
                <th scope="col" className="num">
                  Sessions
                </th>
                {goals.map((g) => (
                  <th key={g.id} scope="col" className="num">
                    {g.name}: rate, lift
                  </th>
                ))}
              </tr>
            </thead>
            <tbody>
              {paths.map((p) => (
                <tr key={p.steps.join('\u0000')}>
                  <th scope="row" className="reason">
                    {p.steps.join(' → ')}
                  </th>
                  <td className="num">{formatCount(p.sessions)}</td>
                  {goals.map((g) => {
                    const r = p.goals.find((x) => x.id === g.id);
                    return (
                      <td key={g.id} className="num">
                        {r ? formatPercent(r.rate) : '—'}
                        {r?.lift != null && <span className="muted">, ×{formatHundredths(r.lift)}</span>}
                      </td>
                    );
                  })}
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
