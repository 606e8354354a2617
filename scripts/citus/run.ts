// `npm run citus`: builds Citus once (scripts/citus/build.sh), starts a coordinator and two workers under
// DATA_DIR/citus (default ./data) on 127.0.0.1 ports CITUS_PORT (default 5440) to CITUS_PORT+2, prints the
// DATABASE_URL to start the service with, and stops the nodes on Ctrl-C. `npm run citus -- stop` stops nodes
// left running; `npm run citus -- detach` leaves them running after printing the URL.
import path from 'node:path';
import { citusNodes, ensureCitusInstalled, startCitusCluster, stopNode } from './cluster.ts';

const dataDir = path.resolve(process.env.DATA_DIR ?? 'data');
const basePort = Number(process.env.CITUS_PORT ?? 5440);
const command = process.argv[2] ?? 'start';

if (command === 'stop') {
  const { coordinator, workers } = citusNodes({ dataDir, basePort });
  for (const n of [...workers, coordinator]) stopNode(n);
  console.log('› Citus nodes stopped');
  process.exit(0);
}
ensureCitusInstalled();
const cluster = await startCitusCluster({ dataDir, basePort });
console.log(`› Citus ${cluster.workers.length} workers + coordinator running in ${path.join(dataDir, 'citus')}`);
console.log(`DATABASE_URL=${cluster.url}`);
console.log(
  'Start the service with it (`DATABASE_URL=… npm start`): its migrations run on the coordinator and it lays the tables out over the workers itself.',
);
if (command !== 'detach') {
  console.log('Ctrl-C stops the nodes.');
  const stop = () => {
    cluster.stop();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  setInterval(() => {}, 1 << 30);
}
