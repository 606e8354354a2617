import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['apps/*/test/**/*.test.ts', 'packages/*/test/**/*.test.ts', 'apps/*/e2e/**/*.spec.ts'],
    globalSetup: ['apps/api/test/support/global-setup.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    maxWorkers: 2,
    // expect.poll waits up to 10 s (vitest's default is 1 s): a browser on a loaded CI machine can take
    // longer than that to show a dashboard's first figures, and a poll only waits as long as it must.
    expect: { poll: { timeout: 10_000 } },
  },
});
