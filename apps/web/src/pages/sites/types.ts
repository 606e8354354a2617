import type { inferRouterOutputs } from '@trpc/server';
import type { AppRouter } from '@us/api';

type Outputs = inferRouterOutputs<AppRouter>;

/** A site as the API answers it, with its hostnames and settings. */
export type Site = Outputs['sites']['get']['site'];
export type Hostname = Site['hostnames'][number];
export type HostnameDetail = Outputs['hostnames']['create'];
export type ProxyRecord = NonNullable<HostnameDetail['proxy']>['records'][number];
export type SiteKey = Outputs['siteKeys']['list']['keys'][number];
export type Goal = Site['settings']['goals'][number];
export type Experiment = Site['settings']['experiments'][number];
export type ExperimentStatus = Experiment['status'];
export type InstallStatus = Outputs['sites']['installStatus'];
export type Snippet = Outputs['sites']['snippet'];
export type InternalLink = Outputs['internalLink']['create'];

export const EXPERIMENT_STATUSES: readonly ExperimentStatus[] = ['draft', 'running', 'stopped'];
