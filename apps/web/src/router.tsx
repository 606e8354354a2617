import { type AnchorHTMLAttributes, type MouseEvent, useEffect, useSyncExternalStore } from 'react';

/** A tiny History API router: one subscription, `navigate`, `<Link>` and `<Redirect>`. */
const listeners = new Set<() => void>();
const notify = () => {
  for (const l of listeners) l();
};

function subscribe(listener: () => void) {
  listeners.add(listener);
  window.addEventListener('popstate', listener);
  return () => {
    listeners.delete(listener);
    window.removeEventListener('popstate', listener);
  };
}

/**
 * Goes to `to`. A `flash` message travels in the history entry, so the next page can say what just
 * happened ("You are signed out") without any global state.
 */
export function navigate(to: string, opts: { replace?: boolean; flash?: string } = {}) {
  const state = opts.flash ? { flash: opts.flash } : null;
  if (opts.replace) window.history.replaceState(state, '', to);
  else window.history.pushState(state, '', to);
  window.scrollTo(0, 0);
  notify();
}

/** The current path, re-rendering on every navigation. */
export function usePath(): string {
  return useSyncExternalStore(subscribe, () => window.location.pathname);
}

/** One query parameter of the current address (e.g. the e-mail link's `token`). */
export function useQueryParam(name: string): string | null {
  const search = useSyncExternalStore(subscribe, () => window.location.search);
  return new URLSearchParams(search).get(name);
}

/** The current query string (`?a=1`, or ''), re-rendering on every navigation. */
export function useSearch(): string {
  return useSyncExternalStore(subscribe, () => window.location.search);
}

/**
 * Changes only the query string of the current address (page choices such as a date range), keeping
 * the scroll position; a new history entry unless `replace`, so Back undoes the choice.
 */
export function setSearch(params: URLSearchParams, opts: { replace?: boolean } = {}) {
  const search = params.toString();
  const to = `${window.location.pathname}${search ? `?${search}` : ''}${window.location.hash}`;
  if (opts.replace) window.history.replaceState(null, '', to);
  else window.history.pushState(null, '', to);
  notify();
}

/** Forgets the current entry's flash message (it has been read and acted on). */
export function dismissFlash() {
  if (window.history.state === null) return;
  window.history.replaceState(null, '', window.location.href);
  notify();
}

/** The flash message of the current history entry, if any. */
export function useFlash(): string | null {
  return useSyncExternalStore(subscribe, () => {
    const state: unknown = window.history.state;
    const flash = state && typeof state === 'object' && 'flash' in state ? state.flash : null;
    return typeof flash === 'string' ? flash : null;
  });
}

type LinkProps = AnchorHTMLAttributes<HTMLAnchorElement> & { to: string };

export function Link({ to, onClick, ...rest }: LinkProps) {
  const follow = (e: MouseEvent<HTMLAnchorElement>) => {
    onClick?.(e);
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(to);
  };
  return <a href={to} onClick={follow} {...rest} />;
}

export function Redirect({ to }: { to: string }) {
  useEffect(() => navigate(to, { replace: true }), [to]);
  return null;
}
