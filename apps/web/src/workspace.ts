import { useSyncExternalStore } from 'react';

/**
 * The workspace the dashboard acts in, remembered in this browser (the dashboard's own preference,
 * not a visitor identifier). Sent as X-Workspace on every API call; unset → the server's default
 * (the workspace the person joined first).
 */
const KEY = 'us_workspace';
const listeners = new Set<() => void>();

export function currentWorkspaceId(): string | null {
  try {
    return window.localStorage.getItem(KEY);
  } catch {
    return null;
  }
}

export function chooseWorkspace(id: string | null) {
  try {
    if (id) window.localStorage.setItem(KEY, id);
    else window.localStorage.removeItem(KEY);
  } catch {
    // storage unavailable: the server default applies
  }
  for (const l of listeners) l();
}

/** Calls `listener` after every choice; returns the way to stop. */
export function onWorkspaceChange(listener: () => void): () => void {
  listeners.add(listener);
  return () => {
    listeners.delete(listener);
  };
}

export function useWorkspaceId(): string | null {
  return useSyncExternalStore(onWorkspaceChange, currentWorkspaceId);
}
