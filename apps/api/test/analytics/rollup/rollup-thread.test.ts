// The rollup thread starts whatever flags the process runs with: per-process flags such as the bench's
// `--expose-gc` made `new Worker` throw, and every rollup failed.
import { Worker } from 'node:worker_threads';
import { describe, expect, it } from 'vitest';
import { rollupWorkerFile, workerExecArgv } from '../../../src/analytics/rollup/rollup-thread.ts';

describe("the rollup thread's flags", () => {
  it('keep the module loaders, add tsx, and leave per-process flags out', () => {
    const argv = ['--expose-gc', '--max-old-space-size=4096', '--import', 'tsx', '--require=./x.cjs', '--conditions', 'dev'];
    expect(workerExecArgv(argv)).toEqual(['--import', 'tsx', '--require=./x.cjs', '--conditions', 'dev']);
    expect(workerExecArgv(['--expose-gc'])).toEqual(['--import', 'tsx']);
  });

  it('add no tsx for the built JavaScript worker, which a production install must start without it', () => {
    const built = rollupWorkerFile('file:///srv/app/apps/api/dist/main.js');
    expect(built.href).toBe('file:///srv/app/apps/api/dist/rollup-worker.js');
    expect(workerExecArgv(['--enable-source-maps', '--no-memory-reducer'], built)).toEqual([]);
    expect(rollupWorkerFile('file:///repo/apps/api/src/analytics/rollup/rollup-thread.ts').pathname).toBe(
      '/repo/apps/api/src/analytics/rollup/rollup-worker.ts',
    );
  });

  it('are accepted by a worker thread where the process flags are not', async () => {
    const argv = ['--expose-gc', '--import', 'tsx'];
    expect(() => new Worker('0', { eval: true, execArgv: argv })).toThrow(/execArgv/);
    const worker = new Worker('require("node:worker_threads").parentPort.postMessage("up")', {
      eval: true,
      execArgv: workerExecArgv(argv),
    });
    const said = await new Promise((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await worker.terminate();
    expect(said).toBe('up');
  });
});
