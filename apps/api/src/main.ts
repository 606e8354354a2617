import { start } from './boot.ts';

const running = await start();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    // A second signal while stopping means "now": what the first one has not saved yet is given up.
    if (stopping) process.exit(1);
    stopping = true;
    try {
      await running.close();
      process.exit(0);
    } catch (err) {
      running.deps.logger.error('shutdown failed', err);
      process.exit(1);
    }
  });
}
