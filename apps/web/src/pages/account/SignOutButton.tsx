import { toProblem } from '../../problem.ts';
import { useSignOut } from '../../session.ts';

export function SignOutButton() {
  const signOut = useSignOut();
  return (
    <>
      {signOut.error && (
        <span className="header-error" role="alert">
          {toProblem(signOut.error).title}
        </span>
      )}
      <button
        type="button"
        className="button button-secondary button-small"
        onClick={() => signOut.mutate()}
        disabled={signOut.isPending}
      >
        {signOut.isPending ? 'Signing out…' : 'Sign out'}
      </button>
    </>
  );
}
