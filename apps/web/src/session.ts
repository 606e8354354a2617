import { type QueryClient, useMutation, useQueryClient } from '@tanstack/react-query';
import { landingFor } from './data/landing.ts';
import { navigate } from './router.tsx';
import { useTRPC } from './trpc.ts';

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

/**
 * After signing in: nothing loaded for whoever was here before stays cached; on to where the work is (the
 * last dashboard this person opened in this browser, else their sites).
 */
export function useEnterDashboard(): (userId?: string) => void {
  const queryClient = useQueryClient();
  return (userId) => {
    queryClient.clear();
    navigate(landingFor(userId));
  };
}
