/**
 * What the API package offers its clients (the dashboard): the router's type and the inputs and outputs
 * of every procedure, by name. Types only: a client never bundles server code.
 */
import type { inferRouterInputs, inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from './router.ts';

export type { AppRouter };
export type RouterInputs = inferRouterInputs<AppRouter>;
export type RouterOutputs = inferRouterOutputs<AppRouter>;
