import { GuestPage } from '../components/GuestPage.tsx';
import { Notice } from '../components/Notice.tsx';
import { useQuery } from '../data/useQuery.ts';
import { Redirect } from '../router.tsx';
import { api } from '../trpc.ts';

/** `/`: the account page when signed in, sign-in otherwise. */
export function HomePage() {
  const me = useQuery(() => api.me.get.query());
  if (me.data) return <Redirect to="/account" />;
  if (me.problem?.status === 401) return <Redirect to="/login" />;
  if (me.problem) {
    return (
      <GuestPage title="Unseen Stats">
        <Notice tone="error">{me.problem.title}</Notice>
      </GuestPage>
    );
  }
  return <p className="loading">Loading…</p>;
}
