import { start } from './boot.ts';

const running = await start();
let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await running.close();
    process.exit(0);
  });
}
