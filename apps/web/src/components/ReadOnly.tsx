import { createContext, type ReactNode, useContext } from 'react';
import type { Scope } from '../../../../packages/shared/src/scopes.ts';
import { useMe } from '../data/useMe.ts';
import { Notice } from './Notice.tsx';

/**
 * Whether the controls inside may change anything. A page whose writes need a scope the signed-in person's role lacks
 * wraps its cards in `<ReadOnly when>`: its confirm buttons and form submits are left out and its form fields shown
 * disabled (components/ConfirmButton.tsx, FormShell.tsx), and whatever else writes is wrapped in `<IfWritable>`.
 */
const ReadOnlyContext = createContext(false);

export function ReadOnly({ when, children }: { when: boolean; children: ReactNode }) {
  return <ReadOnlyContext.Provider value={when}>{children}</ReadOnlyContext.Provider>;
}

/** True inside `<ReadOnly when>`: leave out what writes. */
export const useReadOnly = () => useContext(ReadOnlyContext);

/** Its children only where changes can be made. */
export function IfWritable({ children }: { children: ReactNode }) {
  return useReadOnly() ? null : children;
}

/**
 * Whether the signed-in person's role (or the token's scopes) grants `scope`: null until known. The server refuses
 * what the scope does not allow either way; this only keeps controls that would be refused off the page.
 */
export function useCan(scope: Scope): boolean | null {
  const me = useMe();
  return me.data ? me.data.scopes.includes(scope) : null;
}

/** What the signed-in person's role cannot do here, and whom to ask: "Your role (viewer) `says`: ask …". */
export function RoleNotice({ says }: { says: string }) {
  const role = useMe().data?.role ?? 'none';
  return (
    <Notice tone="info">
      Your role ({role}) {says}: ask an owner or admin of the workspace.
    </Notice>
  );
}

/** The role that lacks a scope, and what it may still do: "Your role (viewer) can see … but not change them". */
export function CannotChange({ what, change = 'change them' }: { what: string; change?: string }) {
  return <RoleNotice says={`can see ${what} but not ${change}`} />;
}
