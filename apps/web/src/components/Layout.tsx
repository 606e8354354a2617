import type { ReactNode } from 'react';
import { Link } from '../router.tsx';

/** The shell of every page: a header with the product name and the page's own actions. */
export function Layout({ actions, children }: { actions?: ReactNode; children: ReactNode }) {
  return (
    <div className="shell">
      <header className="header">
        <Link to="/" className="brand">
          <span className="brand-mark" aria-hidden="true" />
          Unseen Stats
        </Link>
        <nav className="header-actions" aria-label="Account">
          {actions}
        </nav>
      </header>
      <main className="main">{children}</main>
    </div>
  );
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
