import { defineConfig } from 'vitest/config';

// `npm run screenshots`: drives Chromium over generated demo traffic and writes the README's pictures
// into docs/screenshots/ (apps/web/shots/). Not part of `npm test`: the pictures are re-taken by hand
// whenever the dashboard changes.
export default defineConfig({
  test: {
    include: ['apps/web/shots/**/*.shots.ts'],
    globalSetup: ['apps/api/test/support/global-setup.ts'],
    testTimeout: 300_000,
    hookTimeout: 120_000,
    pool: 'forks',
    maxWorkers: 1,
  },
});
