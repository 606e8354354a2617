// A process that rolls up a site-day ends by itself once it is done (the one-off job runner, scripts):
// the rollup thread is unreferenced. It was not, because the thread's 'message' listener was added after
// `unref()` and referenced it again: such a process never ended.
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { createOrm, insertRows, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { pageview } from '../../support/rollup-day.ts';
import { siteInNewWorkspace } from '../../support/sites.ts';

let orm: Orm;
afterAll(async () => {
  await orm?.close();
});

let siteId: string;
const DAY = new Date(Date.now() - 3 * 86_400_000).toISOString().slice(0, 10);

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'));
  ({ siteId } = await siteInNewWorkspace(orm, 'Thread exit'));
  await insertRows(orm, 'pageviews', [pageview(siteId, 'exit-visitor', new Date(`${DAY}T10:00:00Z`), { sessionStart: true })]);
});

describe('a process rolling up a site-day', () => {
  it('ends by itself once the day is written', async () => {
    const script = fileURLToPath(new URL('../../support/rollup-one-day.ts', import.meta.url));
    const out = await new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
      const child = execFile(
        process.execPath,
        ['--import', 'tsx', script],
        { env: { ...process.env, DATABASE_URL: inject('databaseUrl'), SITE_ID: siteId, DAY }, timeout: 30_000 },
        (error, stdout, stderr) => resolve({ code: error ? (child.exitCode ?? -1) : 0, stdout, stderr }),
      );
    });
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);
    expect(JSON.parse(out.stdout)).toMatchObject({ recounted: null });
  }, 40_000);
});
