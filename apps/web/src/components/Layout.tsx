import { type ReactNode, useEffect } from 'react';
import { useMe } from '../data/useMe.ts';
import { SignOutButton } from '../pages/account/SignOutButton.tsx';
import { takePendingInvite } from '../pages/workspace/pendingInvite.ts';
import { toProblem } from '../problem.ts';
import { Link, navigate, usePath } from '../router.tsx';
import { ThemeSelect } from '../theme/ThemeSelect.tsx';
import type { Me } from '../trpc.ts';
import { chooseWorkspace, currentWorkspaceId } from '../workspace.ts';
import { WorkspaceSwitcher } from './WorkspaceSwitcher.tsx';

const NAV: readonly (readonly [path: string, label: string])[] = [
  ['/sites', 'Sites'],
  ['/members', 'Members'],
  ['/tokens', 'Tokens'],
  ['/billing', 'Billing'],
  ['/account', 'Account'],
];

/**
 * The shell of every page: a header with the product name and the page's own actions; for a
 * signed-in person also the workspace switcher and the dashboard navigation. Pages that pass no
 * `actions` get the person's address and a sign-out button. Every header has the theme menu.
 */
export function Layout({ actions, children }: { actions?: ReactNode; children: ReactNode }) {
  const me = useSignedIn();
  const user = me?.user;
  // While it is not known yet who is here, the navigation's room is kept (hidden), so the page below
  // does not jump down when it appears.
  const pending = useMe().isPending;
  return (
    <div className="shell">
      <header className="header">
        <div className="header-start">
          <Link to="/" className="brand">
            <span className="brand-mark" aria-hidden="true" />
            Unseen Stats
          </Link>
          {me?.memberships && <WorkspaceSwitcher memberships={me.memberships} current={me.workspaceId} />}
        </div>
        <nav className="header-actions" aria-label="Account">
          <ThemeSelect />
          {actions ??
            (user && (
              <>
                <span className="header-user">{user.email}</span>
                <SignOutButton />
              </>
            ))}
        </nav>
      </header>
      {user ? (
        <DashboardNav />
      ) : pending ? (
        <div className="dashboard-nav-pending" aria-hidden="true">
          <DashboardNav />
        </div>
      ) : null}
      <main className="main">{children}</main>
    </div>
  );
}

function DashboardNav() {
  const path = usePath();
  return (
    <nav className="dashboard-nav" aria-label="Dashboard">
      <ul>
        {NAV.map(([to, label]) => {
          const here = path === to || path.startsWith(`${to}/`);
          return (
            <li key={to}>
              <Link to={to} aria-current={here ? 'page' : undefined}>
                {label}
              </Link>
            </li>
          );
        })}
      </ul>
    </nav>
  );
}

/**
 * Who is signed in (null for visitors and while loading). Keeps the remembered workspace honest: one
 * the person no longer belongs to (the API answers 404 for it) is forgotten and the page reloaded.
 * Brings a person who just signed in back to the invitation they opened while signed out.
 */
function useSignedIn(): Me | null {
  const { data, error } = useMe();
  const path = usePath();
  const status = error ? toProblem(error).status : null;

  useEffect(() => {
    const stored = currentWorkspaceId();
    const stale =
      stored !== null &&
      ((status === 404 && !data) || (data?.memberships && !data.memberships.some((m) => m.workspaceId === stored)));
    if (stale) {
      chooseWorkspace(null);
      window.location.reload();
      return;
    }
    if (data?.user && path !== '/accept-invite') {
      const invite = takePendingInvite();
      if (invite) navigate(invite, { replace: true, flash: 'You are signed in: join the workspace below.' });
    }
  }, [data, status, path]);

  return data?.actor.type === 'user' ? data : null;
}

/** Header links for people who are not signed in. */
export function GuestActions() {
  return (
    <>
      <Link to="/login">Sign in</Link>
      <Link to="/signup" className="button button-secondary button-small">
        Create account
      </Link>
    </>
  );
}
