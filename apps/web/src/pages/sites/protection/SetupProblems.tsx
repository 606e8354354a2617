import { formatCount, formatDateTime } from '../../../lib/format.ts';
import { Link } from '../../../router.tsx';
import { useDecisions } from './data.ts';
import type { Decisions } from './types.ts';

type Problem = Decisions['setupProblems'][number];

/** The headline of one problem: what to do. */
const todo = (p: Problem) =>
  p.problem === 'unverified'
    ? `Verify hostname ${p.hostname} to challenge visitors on it.`
    : `Put proxy hostname ${p.hostname} live to challenge visitors on it.`;

/** Why, and how to fix it. */
const fix = (p: Problem) =>
  p.problem === 'unverified'
    ? 'A check can only send visitors back to a verified hostname, so a visitor the gate challenges there gets a page saying the check cannot bring them back. Add the TXT record shown under Hostnames on the site’s page, then verify it.'
    : 'A check can only send visitors back to a hostname that is live, so a visitor the gate challenges there gets a page saying the check cannot bring them back. Set the DNS records shown under Hostnames on the site’s page; it goes live once they are seen.';

/**
 * The gate's setup problems: hostnames of the site a check cannot return to (while the site challenges, or
 * where such challenges were seen lately), and a count of hostnames not on the site that met them (never
 * named: a hostname is whatever a visitor sent). Nothing when there is none. From the decisions report.
 */
export function SetupProblems({ siteId, days }: { siteId: string; days: number }) {
  const data = useDecisions(siteId, days).data;
  if (!data || (data.setupProblems.length === 0 && data.otherHostnames === 0)) return null;
  const others = data.otherHostnames;
  return (
    <section className="alert site-alert-warn setup-problems" aria-labelledby="setup-problems-title" data-testid="setup-problems">
      <h2 id="setup-problems-title">Setup problems</h2>
      <ul>
        {data.setupProblems.map((p) => (
          <li key={p.hostname}>
            <strong>{todo(p)}</strong> {fix(p)}
            {p.lastSeen && <> Last challenge there: {formatDateTime(p.lastSeen)}.</>}
          </li>
        ))}
        {others > 0 && (
          <li>
            <strong>
              {formatCount(others)} other {others === 1 ? 'hostname' : 'hostnames'} (not on this site).
            </strong>{' '}
            In the last 7 days, challenged requests named {others === 1 ? 'a hostname' : 'hostnames'} this site does not have, so
            their visitors got a page saying the check cannot bring them back. If one is yours, add it to the site and verify it;
            requests naming made-up hostnames need nothing from you.
          </li>
        )}
      </ul>
      <p>
        <Link to={`/sites/${siteId}`}>Go to the site’s hostnames</Link>
      </p>
    </section>
  );
}
