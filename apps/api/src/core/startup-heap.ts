import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * One full collection, once start-up has loaded what the process keeps (modules, the network and country
 * tables). Start-up leaves tens of MB of garbage (the tables' source text among it) that, with the memory
 * reducer off (apps/api/node-flags.json), no collection would come for until the old generation filled up,
 * so the process would keep that memory from its first minute on. Runs before the server listens: no
 * request waits for it. Node exposes `gc` only with --expose-gc: the flag set now reaches a new context.
 */
export function collectStartupGarbage(): void {
  let gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) {
    v8.setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}
