import type { Problem } from './problem.ts';
import { api } from './trpc.ts';
import { navigate } from './router.tsx';

/** Ends this browser's session and goes to the sign-in page. */
export async function signOut() {
  await api.auth.logout.mutate();
  navigate('/login', { flash: 'You are signed out.' });
}

/** For forms of signed-in pages: a 401 means the session is gone, so go and sign in again. */
export function sendToSignInOn401(p: Problem): boolean {
  if (p.status !== 401) return false;
  navigate('/login', { flash: p.title });
  return true;
}
