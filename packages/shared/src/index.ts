export * from './limits.ts';
export * from './plans.ts';
export * from './schemas/auth.ts';
export * from './schemas/common.ts';
export * from './schemas/me.ts';
export * from './scopes.ts';
