// The funnels wing: saved funnels per site and how People moved through them (docs/product/funnels.md).
export { funnelResultsOf } from './funnel-results.ts';
