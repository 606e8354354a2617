import { QueryCache, QueryClient, QueryClientProvider } from '@tanstack/react-query';
import { createTRPCClient, httpBatchLink } from '@trpc/client';
import type { AppRouter } from '@us/api';
import { type ReactNode, useState } from 'react';
import { QUERY_RETRY } from '../../data/retry.ts';
import { isSignedOut, toProblem } from '../../problem.ts';
import { TRPCProvider } from '../../trpc.ts';

/**
 * The API as a shared link's viewer calls it: every call carries the view (X-Share-View) and none the
 * viewer's own session, with a query cache of its own, so nothing a signed-in person loaded mixes with
 * it. A 401 means the view has ended (revoked, or its 12 hours are over): `onEnded` opens the link again.
 */
export function SharedDataProvider({
  view,
  onEnded,
  children,
}: {
  view: string;
  onEnded: (title: string) => void;
  children: ReactNode;
}) {
  const [clients] = useState(() => {
    const queryClient = new QueryClient({
      queryCache: new QueryCache({
        onError: (err) => {
          const p = toProblem(err);
          if (isSignedOut(p)) onEnded(p.title);
        },
      }),
      defaultOptions: { queries: { ...QUERY_RETRY, refetchOnWindowFocus: false } },
    });
    const headers = () => ({ 'X-Share-View': view });
    const trpcClient = createTRPCClient<AppRouter>({
      links: [
        httpBatchLink({
          url: '/trpc',
          headers,
          maxItems: 10,
          fetch: (url, init) => fetch(url, { ...init, credentials: 'omit' }),
        }),
      ],
    });
    return { queryClient, trpcClient };
  });
  return (
    <QueryClientProvider client={clients.queryClient}>
      <TRPCProvider trpcClient={clients.trpcClient} queryClient={clients.queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
