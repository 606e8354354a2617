import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import type { Problem } from './problem.ts';
import { navigate } from './router.tsx';
import { api, useTRPC } from './trpc.ts';

/**
 * The session is over (signed out here, or ended elsewhere): nothing loaded for this person stays
 * cached, and the sign-in page says why. Several calls refused at once lead there once.
 */
export function endSession(queryClient: QueryClient, flash: string, opts: { replace?: boolean } = {}) {
  queryClient.clear();
  if (window.location.pathname !== '/login') navigate('/login', { flash, replace: opts.replace });
}

/** Signing out: ends this browser's session, then the same as any end of a session. */
export function useSignOut() {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return useMutation(trpc.auth.logout.mutationOptions({ onSuccess: () => endSession(queryClient, 'You are signed out.') }));
}

/** After signing in: nothing loaded for whoever was here before stays cached; on to the account page. */
export function useEnterDashboard(): () => void {
  const queryClient = useQueryClient();
  return () => {
    queryClient.clear();
    navigate('/account');
  };
}

/** @deprecated Until every page goes through React Query, whose cache sends a 401 to sign-in. */
export async function signOut() {
  await api.auth.logout.mutate();
  navigate('/login', { flash: 'You are signed out.' });
}

/** @deprecated Until every page goes through React Query, whose cache sends a 401 to sign-in. */
export function sendToSignInOn401(p: Problem): boolean {
  if (p.status !== 401) return false;
  navigate('/login', { flash: p.title });
  return true;
}
