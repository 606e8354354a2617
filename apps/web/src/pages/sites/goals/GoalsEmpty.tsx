import { Link } from '../../../router.tsx';

/** The site has no goals: say where they are added. */
export function NoGoals({ siteId }: { siteId: string }) {
  return (
    <div className="card dash-empty">
      <p>
        <strong>No goals yet.</strong> A goal is an event your pages send or a page visitors reach.{' '}
        <Link to={`/sites/${encodeURIComponent(siteId)}`}>Add a goal on the site’s page</Link> (the Goals card); earlier visits
        count too.
      </p>
    </div>
  );
}

/** Goals, but none reached in the period: say what to check. */
export function NoCompletions({ days }: { days: number }) {
  return (
    <div className="card dash-empty">
      <p>
        <strong>No goal was reached in the last {days} days.</strong> For an event goal, send the event from your page with the
        script’s API, <code>window.unseen('signup')</code>, using the goal’s event name (with custom events turned on among the
        parts of the script, on the site’s page); for a page goal, check that the path matches the page visitors reach (without
        the domain or query). Or choose a longer period.
      </p>
    </div>
  );
}
