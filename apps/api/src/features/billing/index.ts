// The billing wing's public surface: what other wings may use (the layering lint holds them to this file).
export { sampleProxyPeaks } from './segments.ts';
