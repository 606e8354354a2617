import { GuestPage } from '../components/GuestPage.tsx';
import { Link } from '../router.tsx';

export function NotFoundPage() {
  return (
    <GuestPage title="Page not found">
      <p>
        There is no page at this address. <Link to="/">Go to the start page</Link>.
      </p>
    </GuestPage>
  );
}
