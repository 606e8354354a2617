import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';

/** Starts a bench server script in its own process and waits for the JSON line it announces itself with. */
export async function startChild<T>(script: string): Promise<{ info: T; proc: ChildProcess }> {
  const proc = spawn(process.execPath, ['--import', 'tsx', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines = createInterface({ input: proc.stdout as NodeJS.ReadableStream });
  for await (const line of lines) {
    if (line.startsWith('{')) return { info: JSON.parse(line) as T, proc };
  }
  throw new Error(`${script} exited before announcing itself`);
}

export async function stopChild(proc: ChildProcess) {
  proc.kill('SIGTERM');
  await new Promise((r) => proc.once('exit', r));
}
