/**
 * Where a person lands after signing in: the last site dashboard they opened in this browser, else their
 * sites. Kept per person (by user id) in localStorage, so another person signing in on the same browser
 * lands on their own sites.
 */
const KEY = 'unseen.lastDashboard';
const DASHBOARD = /^\/sites\/[^/]+\/dashboard$/;

export function rememberDashboard(userId: string, path: string): void {
  try {
    localStorage.setItem(KEY, JSON.stringify({ userId, path }));
  } catch {
    // Storage refused (private mode, quota): landing on the sites list is fine.
  }
}

export function landingFor(userId: string | undefined): string {
  try {
    const saved = JSON.parse(localStorage.getItem(KEY) ?? 'null') as { userId?: unknown; path?: unknown } | null;
    if (userId && saved?.userId === userId && typeof saved.path === 'string' && DASHBOARD.test(saved.path)) return saved.path;
  } catch {
    // Unreadable: the default.
  }
  return '/sites';
}
