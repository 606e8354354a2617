import type { ComponentType } from 'react';
import { AccountPage } from './pages/AccountPage.tsx';
import { ConfirmReportPage } from './pages/ConfirmReportPage.tsx';
import { ForgotPasswordPage } from './pages/ForgotPasswordPage.tsx';
import { HomePage } from './pages/HomePage.tsx';
import { LoginPage } from './pages/LoginPage.tsx';
import { NotFoundPage } from './pages/NotFoundPage.tsx';
import { ResendVerificationPage } from './pages/ResendVerificationPage.tsx';
import { ResetPasswordPage } from './pages/ResetPasswordPage.tsx';
import { SignupPage } from './pages/SignupPage.tsx';
import { SharePage } from './pages/share/SharePage.tsx';
import { DashboardPage } from './pages/sites/dashboard/DashboardPage.tsx';
import { FullTablePage } from './pages/sites/dashboard/full/FullTablePage.tsx';
import { ExperimentPage } from './pages/sites/experiment/ExperimentPage.tsx';
import { ExportPage } from './pages/sites/export/ExportPage.tsx';
import { FunnelsPage } from './pages/sites/funnels/FunnelsPage.tsx';
import { GoalsPage } from './pages/sites/goals/GoalsPage.tsx';
import { ImportsPage } from './pages/sites/imports/ImportsPage.tsx';
import { JourneysPage } from './pages/sites/journeys/JourneysPage.tsx';
import { ProtectionPage } from './pages/sites/protection/ProtectionPage.tsx';
import { SitePage } from './pages/sites/SitePage.tsx';
import { SitesPage } from './pages/sites/SitesPage.tsx';
import { SearchPage } from './pages/sites/search/SearchPage.tsx';
import { UnsubscribeAlertPage } from './pages/UnsubscribeAlertPage.tsx';
import { UnsubscribeReportPage } from './pages/UnsubscribeReportPage.tsx';
import { VerifyPage } from './pages/VerifyPage.tsx';
import { AcceptInvitePage } from './pages/workspace/AcceptInvitePage.tsx';
import { BillingPage } from './pages/workspace/BillingPage.tsx';
import { MembersPage } from './pages/workspace/MembersPage.tsx';
import { TokensPage } from './pages/workspace/TokensPage.tsx';
import { usePath } from './router.tsx';

/** Every page of the dashboard by path. E-mail links land on /verify and /reset-password. */
const ROUTES: Record<string, ComponentType> = {
  '/': HomePage,
  '/signup': SignupPage,
  '/verify': VerifyPage,
  '/resend-verification': ResendVerificationPage,
  '/login': LoginPage,
  '/forgot-password': ForgotPasswordPage,
  '/reset-password': ResetPasswordPage,
  '/account': AccountPage,
  '/accept-invite': AcceptInvitePage,
  '/members': MembersPage,
  '/tokens': TokensPage,
  '/billing': BillingPage,
  '/sites': SitesPage,
  '/unsubscribe-alert': UnsubscribeAlertPage,
  '/unsubscribe-report': UnsubscribeReportPage,
  '/confirm-report': ConfirmReportPage,
};

/**
 * Pages whose path carries an id: `/sites/<id>/dashboard` (and `/dashboard/<dimension>`, a table in full), `/protection`, `/goals`, `/funnels`, `/journeys`, `/search`, `/export`, `/imports`,
 * `/experiments/<key>`, `/sites/<id>` (the page reads the id, and the key, from the path); `/share/<token>`
 * (and `/share/<token>/<dimension>`): a shared link's read-only dashboard.
 */
const PATTERN_ROUTES: [pattern: RegExp, page: ComponentType][] = [
  [/^\/share\/[^/]+(\/[^/]+)?$/, SharePage],
  [/^\/sites\/[^/]+\/dashboard$/, DashboardPage],
  [/^\/sites\/[^/]+\/dashboard\/[^/]+$/, FullTablePage],
  [/^\/sites\/[^/]+\/protection$/, ProtectionPage],
  [/^\/sites\/[^/]+\/goals$/, GoalsPage],
  [/^\/sites\/[^/]+\/funnels$/, FunnelsPage],
  [/^\/sites\/[^/]+\/journeys$/, JourneysPage],
  [/^\/sites\/[^/]+\/export$/, ExportPage],
  [/^\/sites\/[^/]+\/imports$/, ImportsPage],
  [/^\/sites\/[^/]+\/search$/, SearchPage],
  [/^\/sites\/[^/]+\/experiments\/[^/]+$/, ExperimentPage],
  [/^\/sites\//, SitePage],
];

export function App() {
  const path = usePath();
  const clean = path.replace(/(.)\/+$/, '$1');
  const Page = ROUTES[clean] ?? PATTERN_ROUTES.find(([pattern]) => pattern.test(clean))?.[1] ?? NotFoundPage;
  // `key` gives each page fresh state, even when navigating to the page already shown.
  return <Page key={path} />;
}
