import { useState } from 'react';
import { toProblem } from '../../problem.ts';
import { signOut } from '../../session.ts';

export function SignOutButton() {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const click = () => {
    setBusy(true);
    setError(null);
    signOut().catch((err: unknown) => {
      setBusy(false);
      setError(toProblem(err).title);
    });
  };
  return (
    <>
      {error && (
        <span className="header-error" role="alert">
          {error}
        </span>
      )}
      <button type="button" className="button button-secondary button-small" onClick={click} disabled={busy}>
        {busy ? 'Signing out…' : 'Sign out'}
      </button>
    </>
  );
}
