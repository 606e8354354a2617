/**
 * The invitation link a signed-out person opened, kept in this tab while they sign in, so the
 * dashboard can bring them back to it (the sign-in page itself always goes to /account).
 */
const KEY = 'us_pending_invite';
const MAX_AGE_MS = 60 * 60 * 1000;

export function rememberPendingInvite(path: string) {
  try {
    window.sessionStorage.setItem(KEY, JSON.stringify({ path, at: Date.now() }));
  } catch {
    // storage unavailable: the page tells the person to open the link again
  }
}

export function forgetPendingInvite() {
  try {
    window.sessionStorage.removeItem(KEY);
  } catch {
    // nothing to forget
  }
}

/** The remembered invitation path (at most an hour old), forgotten as it is read. */
export function takePendingInvite(): string | null {
  try {
    const raw = window.sessionStorage.getItem(KEY);
    if (!raw) return null;
    window.sessionStorage.removeItem(KEY);
    const { path, at } = JSON.parse(raw) as { path?: unknown; at?: unknown };
    const fresh = typeof at === 'number' && Date.now() - at < MAX_AGE_MS;
    return fresh && typeof path === 'string' && path.startsWith('/accept-invite?') ? path : null;
  } catch {
    return null;
  }
}
