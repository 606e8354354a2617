import apiNode from '../../node-flags.json' with { type: 'json' };

/**
 * The V8 flags `npm start` gives the API process (`apps/api/node-flags.json`; why each: docs/operations/deploy.md,
 * "Node flags of the API process").
 */
export const API_NODE_FLAGS: readonly string[] = apiNode.flags;

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
