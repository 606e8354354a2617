import { NotFoundPage } from '../NotFoundPage.tsx';

/** Placeholder until this page is built. */
export function MembersPage() {
  return <NotFoundPage />;
}
