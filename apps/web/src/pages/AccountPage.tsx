import { Layout } from '../components/Layout.tsx';
import { Notice } from '../components/Notice.tsx';
import { Page } from '../components/Page.tsx';
import { useQuery } from '../data/useQuery.ts';
import { Redirect, useFlash } from '../router.tsx';
import { api } from '../trpc.ts';
import { ChangePasswordCard } from './account/ChangePasswordCard.tsx';
import { ProfileCard } from './account/ProfileCard.tsx';
import { SessionsCard } from './account/SessionsCard.tsx';
import { SignOutButton } from './account/SignOutButton.tsx';
import { TwoFactorCard } from './account/TwoFactorCard.tsx';

/** The signed-in person's page: who they are, two-factor, password and sessions. */
export function AccountPage() {
  const flash = useFlash();
  const me = useQuery(() => api.me.get.query());
  const sessions = useQuery(() => api.auth.sessions.query());

  if (me.problem?.status === 401) return <Redirect to="/login" />;
  const user = me.data?.user;

  return (
    <Layout
      actions={
        user && (
          <>
            <span className="header-user">{user.email}</span>
            <SignOutButton />
          </>
        )
      }
    >
      <Page title="Your account" wide>
        {flash && <Notice tone="info">{flash}</Notice>}
        {me.problem && <Notice tone="error">{me.problem.title}</Notice>}
        {!user && !me.problem && <p className="loading">Loading…</p>}
        {user && (
          <div className="cards">
            <ProfileCard user={user} memberships={me.data?.memberships ?? []} />
            <TwoFactorCard enabled={user.twoFactor} onChanged={me.reload} />
            <ChangePasswordCard onChanged={sessions.reload} />
            <SessionsCard query={sessions} />
          </div>
        )}
      </Page>
    </Layout>
  );
}
