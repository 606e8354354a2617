import { formatCount, formatDateTime } from '../../../lib/format.ts';
import { Link } from '../../../router.tsx';
import { useDecisions } from './data.ts';
import { tabHref } from './ProtectionTabs.tsx';
import type { Decisions, Mode } from './types.ts';

/** The days the problems look back over (the report's no-return notes are kept as long). */
const DAYS = 7;

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
 * The gate's setup problems, above the tabs: hostnames of the site a check cannot return to (while the site
 * challenges, or where such challenges were seen lately), a count of hostnames not on the site that met them
 * (never named: a hostname is whatever a visitor sent), and, while protection is on, no request recorded
 * from an edge in the last 7 days. Nothing when there is none. From the decisions report of 7 days.
 *
 * The service records no edge's config fetches, so "no edge is running" is read from the requests edges
 * report: an edge that fetched its config but reports nothing looks the same as one never installed.
 */
export function SetupProblems({ siteId, mode }: { siteId: string; mode: Mode }) {
  const data = useDecisions(siteId, DAYS).data;
  if (!data) return null;
  const others = data.otherHostnames;
  const noEdge = mode !== 'off' && data.totals.total === 0;
  if (data.setupProblems.length === 0 && others === 0 && !noEdge) return null;
  const hostnames = `/sites/${encodeURIComponent(siteId)}`;
  return (
    <section className="alert site-alert-warn setup-problems" aria-labelledby="setup-problems-title" data-testid="setup-problems">
      <h2 id="setup-problems-title">Setup problems</h2>
      <ul>
        {noEdge && (
          <li>
            <strong>No request from an edge in the last {DAYS} days.</strong> Protection is on, but nothing decides at your site
            until the edge SDK or proxy mode runs in front of it: an edge fetches these settings and reports every request it
            decides, which shows up here within a minute. <Link to={tabHref(siteId, 'settings')}>Install at your edge</Link>{' '}
            (Settings tab).
          </li>
        )}
        {data.setupProblems.map((p) => (
          <li key={p.hostname}>
            <strong>{todo(p)}</strong> {fix(p)}
            {p.lastSeen && <> Last challenge there: {formatDateTime(p.lastSeen)}.</>}{' '}
            <Link to={hostnames}>Go to the site’s hostnames</Link>
          </li>
        ))}
        {others > 0 && (
          <li>
            <strong>
              {formatCount(others)} other {others === 1 ? 'hostname' : 'hostnames'} (not on this site).
            </strong>{' '}
            In the last {DAYS} days, challenged requests named {others === 1 ? 'a hostname' : 'hostnames'} this site does not
            have, so their visitors got a page saying the check cannot bring them back. If one is yours,{' '}
            <Link to={hostnames}>add it to the site</Link> and verify it; requests naming made-up hostnames need nothing from you.
          </li>
        )}
      </ul>
    </section>
  );
}
