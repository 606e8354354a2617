import { NotFoundPage } from '../NotFoundPage.tsx';

/** Placeholder until this page is built. */
export function TokensPage() {
  return <NotFoundPage />;
}
