// The segments wing: saved, named filter sets of a site (docs/product/segments-and-annotations.md), and how a
// stats question applies one by name.
export { withSegment } from './segment-filters.ts';
