import { EmbeddedPostgresMissing } from '@us/db';
import { start } from './boot.ts';
import { missingNodeFlags } from './core/node-flags.ts';

const running = await start().catch((err: unknown) => {
  // A production install without DATABASE_URL: one line saying what to set, not a stack trace.
  if (!(err instanceof EmbeddedPostgresMissing)) throw err;
  console.error(err.message);
  process.exit(1);
});
const missing = missingNodeFlags();
if (missing.length) {
  running.deps.logger.warn(
    `started without ${missing.join(' ')} (apps/api/node-flags.json, which npm start passes): expect longer pauses under steady load`,
  );
}
let stoppingSince = 0;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    // A second signal while stopping means "now" (what is not saved yet is given up); one within a
    // second of the first is the same stop delivered twice (a terminal signals the whole process group).
    if (stoppingSince) {
      if (Date.now() - stoppingSince > 1000) process.exit(1);
      return;
    }
    stoppingSince = Date.now();
    try {
      await running.close();
      process.exit(0);
    } catch (err) {
      running.deps.logger.error('shutdown failed', err);
      process.exit(1);
    }
  });
}
