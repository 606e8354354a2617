import type { RouterOutputs } from '@us/api';
import { Card } from '../../../components/Card.tsx';
import { formatClockTimeWithSeconds } from '../../../lib/format.ts';
import { valueLabel } from '../dashboard/topValues.ts';

type Recent = RouterOutputs['live']['site']['recent'];

const LANE_LABELS: Record<string, string> = { human: 'People', bot: 'Crawler', internal: 'Internal' };

/**
 * The site's last pageviews (any lane, newest first), for someone checking that a launch or the snippet
 * works: each arrives here within seconds of the page being shown.
 */
export function LastPageviews({ recent, minutes }: { recent: Recent | undefined; minutes: number }) {
  return (
    <Card title="Last pageviews" aside={<span className="muted">live · last {minutes} minutes</span>}>
      {recent === undefined && <p className="loading">Loading…</p>}
      {recent?.length === 0 && (
        <p className="muted" data-testid="live-empty">
          No pageviews in the last {minutes} minutes. Open a page of the site that has the snippet: it shows here within seconds.
        </p>
      )}
      {recent && recent.length > 0 && (
        <div className="table-scroll">
          <table className="dash-top live-table" aria-label="Last pageviews">
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Page</th>
                <th scope="col">Source</th>
                <th scope="col">Country</th>
                <th scope="col">Device</th>
                <th scope="col">Lane</th>
              </tr>
            </thead>
            <tbody>
              {recent.map((r, i) => (
                <tr key={`${r.at}-${i}`}>
                  <td>
                    <time dateTime={r.at}>{formatClockTimeWithSeconds(r.at)}</time>
                  </td>
                  <th scope="row" className="dash-top-label">
                    <span className="dash-top-text" title={r.path}>
                      {r.path}
                    </span>
                  </th>
                  <td>{valueLabel('source', r.source)}</td>
                  <td>{valueLabel('country', r.country)}</td>
                  <td>{valueLabel('device', r.device)}</td>
                  <td>{LANE_LABELS[r.lane] ?? r.lane}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </Card>
  );
}
