// `npm start`: builds the dashboard (and page script) when no build exists, then runs the server.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

if (!existsSync('apps/web/dist/index.html')) {
  console.log('› no dashboard build yet: building it once (npm run build)');
  const r = spawnSync('turbo', ['run', 'build', '--output-logs=errors-only'], { stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}
const r = spawnSync('node', ['--import', 'tsx', 'apps/api/src/main.ts'], { stdio: 'inherit' });
process.exit(r.status ?? 0);
