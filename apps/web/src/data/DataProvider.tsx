import { QueryClientProvider } from '@tanstack/react-query';
import type { ReactNode } from 'react';
import { TRPCProvider, trpcClient } from '../trpc.ts';
import { queryClient } from './queryClient.ts';

/** The one query cache and the typed API around the whole dashboard. */
export function DataProvider({ children }: { children: ReactNode }) {
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        {children}
      </TRPCProvider>
    </QueryClientProvider>
  );
}
