import type { ChangeEvent } from 'react';
import type { Me } from '../trpc.ts';
import { chooseWorkspace } from '../workspace.ts';

type Membership = NonNullable<Me['memberships']>[number];

/** Where to land after switching: a page about one site of the old workspace becomes the site list. */
function landingPath(): string {
  const { pathname, search } = window.location;
  return pathname.startsWith('/sites/') ? '/sites' : `${pathname}${search}`;
}

/**
 * The workspace the dashboard acts in, chosen among the person's memberships. Switching remembers the
 * choice and reloads the page, so every list on it is fetched again for the new workspace.
 */
export function WorkspaceSwitcher({ memberships, current }: { memberships: Membership[]; current: string | null }) {
  if (memberships.length === 0) return null;
  const active = memberships.find((m) => m.workspaceId === current);

  if (memberships.length === 1) {
    return (
      <span className="workspace-single">
        <span className="visually-hidden">Workspace: </span>
        {(active ?? memberships[0])?.name}
      </span>
    );
  }

  const choose = (e: ChangeEvent<HTMLSelectElement>) => {
    const next = memberships.find((m) => m.workspaceId === e.target.value);
    if (!next) return;
    chooseWorkspace(next.workspaceId);
    // The flash rides in the history entry, which survives the reload.
    window.history.replaceState({ flash: `You are now working in ${next.name}.` }, '', landingPath());
    window.location.reload();
  };

  return (
    <div className="workspace-switcher">
      <label htmlFor="workspace-switcher" className="visually-hidden">
        Workspace
      </label>
      <select id="workspace-switcher" value={active?.workspaceId ?? ''} onChange={choose}>
        {!active && <option value="">Choose a workspace</option>}
        {memberships.map((m) => (
          <option key={m.workspaceId} value={m.workspaceId}>
            {m.name} ({m.role})
          </option>
        ))}
      </select>
    </div>
  );
}
