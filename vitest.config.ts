import { defaultServerConditions } from 'vite';
import { defineConfig } from 'vitest/config';

// Four lanes, one vitest project each, chosen by the test file's name (docs/contributing.md):
//   unit     *.test.ts              no database, no server: `npm test -- --project unit` runs in seconds
//   service  *.integration.test.ts  services and jobs against real PostgreSQL (embedded) and real Redis; the edge
//                                   SDK in real workerd
//   http     *.http.test.ts         a whole server answering over HTTP (faces, attacks, faults)
//   browser  e2e/*.spec.ts          real Chromium against a whole server
// The three lanes with real parts each start their own PostgreSQL and redis-server, and the service and http
// lanes a Redis Cluster (global-setup.ts).
const withRealParts = ['apps/api/test/support/global-setup.ts'];

export default defineConfig({
  // Workspace packages that publish built files (`@unseen-stats/edge`) are tested from their TypeScript source:
  // the same condition as tsconfig.base.json's customConditions (docs/contributing.md, "Packages published from here").
  // Vitest's own default drops 'module' (that field is not always native ESM): so does this list.
  ssr: { resolve: { conditions: ['@unseen-stats/source', ...defaultServerConditions.filter((c) => c !== 'module')] } },
  test: {
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // expect.poll waits up to 10 s (vitest's default is 1 s): a browser on a loaded CI machine can take
    // longer than that to show a dashboard's first figures, and a poll only waits as long as it must.
    expect: { poll: { timeout: 10_000 } },
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts'],
          exclude: ['**/node_modules/**', '**/*.integration.test.ts', '**/*.http.test.ts'],
        },
      },
      {
        extends: true,
        test: {
          name: 'service',
          include: ['apps/*/test/**/*.integration.test.ts', 'packages/*/test/**/*.integration.test.ts'],
          globalSetup: withRealParts,
        },
      },
      { extends: true, test: { name: 'http', include: ['apps/*/test/**/*.http.test.ts'], globalSetup: withRealParts } },
      { extends: true, test: { name: 'browser', include: ['apps/*/e2e/**/*.spec.ts'], globalSetup: withRealParts } },
    ],
  },
});
