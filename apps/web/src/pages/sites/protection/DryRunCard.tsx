import { Card } from '../../../components/Card.tsx';
import { Notice } from '../../../components/Notice.tsx';
import { formatCount, formatDayAndTime } from '../../../lib/format.ts';
import { ActionBadge, ActionCounts, ActionHeads, ReasonsTable } from './parts.tsx';
import type { DryRun } from './types.ts';

interface DryRunCardProps {
  result: DryRun | null;
  /** The result is the dry run of the settings as they are edited now. */
  fresh: boolean;
  running: boolean;
  problem: string | null;
  onRun: () => void;
}

/** Replays the edited, unsaved settings over the last 7 days of stored requests: what each rule would have done. */
export function DryRunCard({ result, fresh, running, problem, onRun }: DryRunCardProps) {
  return (
    <Card title="Dry run">
      <p className="card-intro">
        Replays the settings as edited above, before you save them, over the site’s stored requests of the last 7 days, with the
        same decision function the gate uses.
      </p>
      <div className="form-actions">
        <button type="button" className="button button-primary" onClick={onRun} disabled={running}>
          {running ? 'Replaying…' : 'Dry run the edited settings'}
        </button>
      </div>
      {problem && <Notice tone="error">{problem}</Notice>}
      {result && (
        <div className="dry-run" aria-busy={running} data-testid="dry-run">
          {!fresh && <Notice tone="info">The settings changed since this dry run: run it again to see the edits.</Notice>}
          {result.sampled && <Notice tone="info">{result.sampled.note}</Notice>}
          <p className="dry-run-summary" role="status">
            {formatCount(result.requests)} requests from {formatDayAndTime(result.from)} to {formatDayAndTime(result.to)}.{' '}
            {result.mode === 'log' ? 'In log mode every request is served; ' : ''}
            {result.requests > 0 && (
              <>{formatCount(result.changed)} would be treated differently than under the saved settings.</>
            )}
          </p>
          {result.requests > 0 && (
            <>
              <table className="site-table dry-run-totals" aria-label="Dry run totals">
                <thead>
                  <tr>
                    <th scope="col">Settings</th>
                    <ActionHeads />
                  </tr>
                </thead>
                <tbody>
                  <tr>
                    <th scope="row">Edited</th>
                    <ActionCounts counts={result.totals} />
                  </tr>
                  {result.intended && (
                    <tr>
                      <th scope="row">Edited, if log mode acted</th>
                      <ActionCounts counts={result.intended} />
                    </tr>
                  )}
                  <tr>
                    <th scope="row">Saved</th>
                    <ActionCounts counts={result.saved} />
                  </tr>
                </tbody>
              </table>

              <h3 className="site-subheading">What each rule would have done</h3>
              <div className="site-table-wrap">
                <table className="site-table" aria-label="Dry run per rule">
                  <thead>
                    <tr>
                      <th scope="col">Rule</th>
                      <th scope="col" className="fit">
                        Action
                      </th>
                      <th scope="col" className="num">
                        First match
                      </th>
                      <ActionHeads />
                      <th scope="col">Most matched</th>
                    </tr>
                  </thead>
                  <tbody>
                    {result.rules.map((r) => (
                      <tr key={r.index}>
                        <th scope="row">
                          #{r.index + 1}
                          {r.label ? ` ${r.label}` : ''}
                        </th>
                        <td className="fit">
                          <ActionBadge action={r.action} />
                        </td>
                        <td className="num">{formatCount(r.matched)}</td>
                        <ActionCounts counts={r} />
                        <td>{r.examples.map((e) => `${e.client} ${formatCount(e.count)}`).join(', ') || '—'}</td>
                      </tr>
                    ))}
                    <tr>
                      <th scope="row">No rule (decision order)</th>
                      <td />
                      <td className="num">
                        {formatCount(result.otherwise.allow + result.otherwise.challenge + result.otherwise.deny)}
                      </td>
                      <ActionCounts counts={result.otherwise} />
                      <td />
                    </tr>
                  </tbody>
                </table>
              </div>

              <h3 className="site-subheading">Top reasons</h3>
              <ReasonsTable label="Dry run reasons" rows={result.reasons} />
            </>
          )}
          <details className="disclosure">
            <summary>What the replay cannot know</summary>
            <ul>
              {result.cannotKnow.map((c) => (
                <li key={c}>{c}</li>
              ))}
              {result.unknownSigns > 0 && (
                <li>
                  {formatCount(result.unknownSigns)} browser requests were filed as bots for automation signs the replay cannot
                  see: they are replayed as showing none.
                </li>
              )}
            </ul>
          </details>
        </div>
      )}
    </Card>
  );
}
