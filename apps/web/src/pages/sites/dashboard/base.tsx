import { createContext, type ReactNode, useContext } from 'react';

/**
 * Where the dashboard of the site on screen lives: `/sites/<id>/dashboard` for its owners, or
 * `/share/<token>` for whoever opened a shared link (then `shared`: no settings, no install steps).
 * Its tables in full are at `<path>/<dimension>`.
 */
interface DashboardBase {
  path: string;
  shared: boolean;
}

const Base = createContext<DashboardBase | null>(null);

export function DashboardBaseProvider({ path, children }: { path: string; children: ReactNode }) {
  return <Base.Provider value={{ path, shared: true }}>{children}</Base.Provider>;
}

/** The dashboard's own path for this site, and whether it is a shared view. */
export function useDashboardBase(siteId: string): DashboardBase {
  return useContext(Base) ?? { path: `/sites/${encodeURIComponent(siteId)}/dashboard`, shared: false };
}
