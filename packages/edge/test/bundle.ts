import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

/** The SDK's entry, for a test worker's `import { withUnseen } from …`. */
export const SDK_ENTRY = fileURLToPath(new URL('../src/index.ts', import.meta.url));

/** A worker module built from `contents` as workerd loads it: one ES module, dependencies included. */
export async function bundleWorker(contents: string, opts: { minify?: boolean } = {}): Promise<string> {
  const out = await build({
    stdin: { contents, resolveDir: process.cwd(), loader: 'ts' },
    bundle: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    minify: opts.minify ?? false,
    write: false,
  });
  return out.outputFiles[0]?.text as string;
}
