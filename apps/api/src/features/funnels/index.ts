// The funnels wing: saved funnels per site and how People moved through them (docs/product/funnels.md).

export { savedFunnelSteps, storedFunnelRows } from './funnel-days.ts';
export { funnelResultsOf } from './funnel-results.ts';
