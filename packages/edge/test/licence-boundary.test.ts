import path from 'node:path';
import { build } from 'esbuild';
import { expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

/**
 * The published SDK is MIT while the service is AGPL-3.0 (docs/contributing.md, "Licences"): what its bundle
 * is made of must stay within the MIT parts and the third-party code its LICENSE names.
 */
const MIT_PARTS = [
  'packages/edge/src/',
  'packages/protection/src/',
  'packages/shared/src/bot-vocabulary.ts',
  // Third-party, named in packages/edge/LICENSE.
  'node_modules/isbot/',
];

it('bundles only MIT parts of the repository and the third-party code its LICENSE names', async () => {
  const out = await build({
    entryPoints: ['index', 'node', 'protect'].map((e) => path.join(root, `packages/edge/src/${e}.ts`)),
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    splitting: true,
    outdir: 'out',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(out.metafile.inputs).map((p) => path.relative(root, path.resolve(p)));
  expect(inputs).toContain('packages/protection/src/crawlers.json');
  expect(inputs.filter((p) => !MIT_PARTS.some((part) => p.startsWith(part)))).toEqual([]);
});
