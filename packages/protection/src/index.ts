export * from './catalogue.ts';
export * from './codes.ts';
export * from './decide.ts';
export * from './facts.ts';
export * from './hosting.ts';
export * from './pass.ts';
export * from './rules.ts';
export * from './settings.ts';
export { mac, newKey, peek, seal, unseal } from './signing.ts';
