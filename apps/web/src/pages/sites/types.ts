import type { RouterOutputs } from '@us/api';

/** A site as the API answers it, with its hostnames and settings. */
export type Site = RouterOutputs['sites']['get']['site'];
export type Hostname = Site['hostnames'][number];
export type HostnameDetail = RouterOutputs['hostnames']['create'];
export type ProxyRecord = NonNullable<HostnameDetail['proxy']>['records'][number];
export type SiteKey = RouterOutputs['siteKeys']['list']['keys'][number];
export type Goal = Site['settings']['goals'][number];
export type Experiment = Site['settings']['experiments'][number];
export type ExperimentStatus = Experiment['status'];
export type InstallStatus = RouterOutputs['sites']['installStatus'];
export type Snippet = RouterOutputs['sites']['snippet'];
export type InternalLink = RouterOutputs['internalLink']['create'];

export const EXPERIMENT_STATUSES: readonly ExperimentStatus[] = ['draft', 'running', 'stopped'];
