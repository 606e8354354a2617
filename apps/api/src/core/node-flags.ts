import apiNode from '../../node-flags.json' with { type: 'json' };

/**
 * The V8 flags `npm start` gives the API process (`apps/api/node-flags.json`; why each: docs/operations/deploy.md,
 * "Node flags of the API process").
 */
export const API_NODE_FLAGS: readonly string[] = apiNode.flags;

/**
 * The environment the API process is started with (`apps/api/node-flags.json`): glibc malloc settings, which glibc
 * reads only when a process starts, so a starter sets them. A value the starter's own environment has wins.
 */
export const API_PROCESS_ENV: Readonly<Record<string, string>> = apiNode.env;

/** `API_PROCESS_ENV` with the values `env` (this process's by default) already sets taking their place. */
export function apiProcessEnv(env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  return Object.fromEntries(Object.entries(API_PROCESS_ENV).map(([k, v]) => [k, env[k] ?? v]));
}

/** The variables of `API_PROCESS_ENV` this process was started without (`process.env` by default). */
export function missingProcessEnv(env: NodeJS.ProcessEnv = process.env): string[] {
  return Object.entries(API_PROCESS_ENV)
    .filter(([k]) => env[k] === undefined)
    .map(([k, v]) => `${k}=${v}`);
}

/**
 * What a process running the TypeScript source adds (never a build): workspace packages that publish built
 * files (`@unseen-stats/edge`) resolve to their source, as tsconfig's `customConditions` and vitest do.
 */
export const API_SOURCE_FLAGS: readonly string[] = apiNode.sourceFlags;

/** `--no_memory_reducer` and `--no-memory-reducer` are one flag to V8. */
const spelling = (flag: string) => `--${flag.replace(/^-+/, '').replaceAll('_', '-')}`;

/** The flags of `API_NODE_FLAGS` this process was started without (`process.execArgv` by default). */
export function missingNodeFlags(execArgv: readonly string[] = process.execArgv): string[] {
  const given = new Set(execArgv.map(spelling));
  return API_NODE_FLAGS.filter((flag) => !given.has(spelling(flag)));
}
