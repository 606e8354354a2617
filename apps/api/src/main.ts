import { start } from './boot.ts';
import { within } from './core/deadline.ts';
import { missingNodeFlags } from './core/node-flags.ts';

const running = await start();
const missing = missingNodeFlags();
if (missing.length) {
  running.deps.logger.warn(
    `started without ${missing.join(' ')} (apps/api/node-flags.json, which npm start passes): expect longer pauses under steady load`,
  );
}
// An error nothing caught ends the process as Node would (exit 1), once it is logged and reported to the
// error hook (ERROR_HOOK), which gets two seconds.
for (const source of ['uncaughtException', 'unhandledRejection'] as const) {
  process.on(source, async (err: unknown) => {
    const reported = running.deps.errors.uncaught(err, source);
    running.deps.logger.error(`${source}: the process stops`, err);
    await within(reported, 2000);
    process.exit(1);
  });
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
