import type { RouterOutputs } from '@us/api';

/** What opening a shared link gives: the view (sent with every call), until when, and the site. */
export type OpenedView = RouterOutputs['shares']['open'];

/*
 * Views opened in this tab, by link, so a reload or a table in full does not ask for the password
 * again. Kept for the tab only (sessionStorage), and forgotten when the API says the view has ended.
 */
const keyOf = (token: string) => `us-share:${token}`;

export function openedView(token: string): OpenedView | null {
  try {
    const raw = sessionStorage.getItem(keyOf(token));
    const view = raw ? (JSON.parse(raw) as OpenedView) : null;
    return view && new Date(view.expiresAt).getTime() > Date.now() + 60_000 ? view : null;
  } catch {
    return null;
  }
}

export function keepView(token: string, view: OpenedView | null) {
  try {
    if (view) sessionStorage.setItem(keyOf(token), JSON.stringify(view));
    else sessionStorage.removeItem(keyOf(token));
  } catch {
    // Storage refused (private mode): the link is opened again on the next page.
  }
}
