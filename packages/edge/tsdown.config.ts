// The published SDK (`npm run build`): ESM with bundled declarations in dist/, one file per entry and shared
// chunks between them (one record queue whichever entries a program imports). The service's own packages it
// uses (@us/protection's gate, @us/shared's bot vocabulary, isbot) are bundled in: the package has no dependencies.
import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: { index: 'src/index.ts', node: 'src/node.ts', protect: 'src/protect.ts' },
  format: 'esm',
  // Workers, Node ≥ 20, Deno and browsers alike: no Node built-ins, no process globals.
  platform: 'neutral',
  target: 'es2022',
  // Minified: a Worker carries what it imports, and wrangler does not minify unless asked. The declarations stay readable.
  minify: true,
  outDir: 'dist',
  clean: true,
  dts: { resolve: true, eager: true },
  tsconfig: 'tsconfig.build.json',
  deps: { alwaysBundle: () => true, onlyBundle: false },
});
