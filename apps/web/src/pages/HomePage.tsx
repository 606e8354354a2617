import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { landingFor } from '../data/landing.ts';
import { useMe } from '../data/useMe.ts';
import { isSignedOut, toProblem } from '../problem.ts';
import { Redirect } from '../router.tsx';

/** `/`: where the work is when signed in (the last dashboard opened, else the sites), sign-in otherwise. */
export function HomePage() {
  const me = useMe();
  const problem = me.error ? toProblem(me.error) : null;
  if (me.data) return <Redirect to={landingFor(me.data.user?.id)} />;
  if (problem && isSignedOut(problem)) return <Redirect to="/login" />;
  if (problem) {
    return (
      <GuestPage title="Unseen Stats">
        <Notice tone="error">{problem.title}</Notice>
      </GuestPage>
    );
  }
  return <p className="loading">Loading…</p>;
}
