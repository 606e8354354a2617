import { useQuery } from '@tanstack/react-query';
import { Layout } from '../components/Layout.tsx';
import { Notice } from '../components/Notice.tsx';
import { Page } from '../components/Page.tsx';
import { useMe } from '../data/useMe.ts';
import { isSignedOut, toProblem } from '../problem.ts';
import { Redirect, useFlash } from '../router.tsx';
import { useTRPC } from '../trpc.ts';
import { ChangePasswordCard } from './account/ChangePasswordCard.tsx';
import { ProfileCard } from './account/ProfileCard.tsx';
import { SessionsCard } from './account/SessionsCard.tsx';
import { SignOutButton } from './account/SignOutButton.tsx';
import { TwoFactorCard } from './account/TwoFactorCard.tsx';

/** The signed-in person's page: who they are, two-factor, password and sessions. */
export function AccountPage() {
  const flash = useFlash();
  const me = useMe();
  // Loaded beside `me`, not after it, so the cards fill in together.
  const sessions = useQuery(useTRPC().auth.sessions.queryOptions());
  const problem = me.error ? toProblem(me.error) : null;

  if (problem && isSignedOut(problem)) return <Redirect to="/login" />;
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
        {problem && <Notice tone="error">{problem.title}</Notice>}
        {!user && !problem && <p className="loading">Loading…</p>}
        {user && (
          <div className="cards">
            <ProfileCard user={user} memberships={me.data?.memberships ?? []} />
            <TwoFactorCard enabled={user.twoFactor} />
            <ChangePasswordCard />
            <SessionsCard query={sessions} />
          </div>
        )}
      </Page>
    </Layout>
  );
}
