// Rolls up one site-day in a process of its own and ends (rollup-thread-exit.integration.test.ts):
// DATABASE_URL, SITE_ID and DAY from the environment; prints what rollupSiteDay answered.
import { createOrm } from '@us/db';
import { rollupSiteDay } from '../../src/analytics/rollup/rollup.ts';

const orm = await createOrm(process.env.DATABASE_URL as string, { poolMax: 2 });
try {
  const done = await rollupSiteDay(orm, {
    siteId: process.env.SITE_ID as string,
    timezone: 'UTC',
    day: process.env.DAY as string,
  });
  console.log(JSON.stringify(done));
} finally {
  await orm.close();
}
