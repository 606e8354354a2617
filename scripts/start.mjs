// `npm start`: builds the dashboard (and page script) when no build exists, then runs the server.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import apiNode from '../apps/api/node-flags.json' with { type: 'json' };

if (!existsSync('apps/web/dist/index.html')) {
  console.log('› no dashboard build yet: building it once (npm run build)');
  const r = spawnSync('turbo', ['run', 'build', '--output-logs=errors-only'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
// The server stops in order on SIGTERM/SIGINT (last flush, then the database): pass the signal on and
// leave with its exit status, rather than dying first and leaving it behind.
const server = spawn(process.execPath, [...apiNode.flags, ...apiNode.sourceFlags, '--import', 'tsx', 'apps/api/src/main.ts'], {
  stdio: 'inherit',
  // MALLOC_ARENA_MAX and the like: glibc reads them as the process starts (a value set already wins).
  env: { ...apiNode.env, ...process.env },
});
for (const signal of ['SIGINT', 'SIGTERM']) process.on(signal, () => server.kill(signal));
server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
