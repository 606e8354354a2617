#!/usr/bin/env bash
# Makes a Citus coordinator of the database PGHOST/PGPORT/PGDATABASE and registers its workers: the same steps
# for the local cluster (scripts/citus/cluster.ts, which the tests use) and for compose.citus.yaml's
# citus-setup service. Safe to run again. The service lays its tables out itself when it starts on the
# coordinator (packages/db/src/citus.ts).
#   COORDINATOR  host:port the workers reach the coordinator at
#   WORKERS      the workers' host:port, separated by spaces
# Each node runs PostgreSQL with shared_preload_libraries = 'citus' and already has the database.
set -euo pipefail
: "${COORDINATOR:?set COORDINATOR=host:port}" "${WORKERS:?set WORKERS='host:port host:port'}"

q() { psql -v ON_ERROR_STOP=1 -qtAX "$@"; }

for node in "$COORDINATOR" $WORKERS; do
  PGHOST=${node%:*} PGPORT=${node##*:} q -c "create extension if not exists citus"
done
q -c "select citus_set_coordinator_host('${COORDINATOR%:*}', ${COORDINATOR##*:})" >/dev/null
for worker in $WORKERS; do
  host=${worker%:*} port=${worker##*:}
  if [ -z "$(q -c "select 1 from pg_dist_node where nodename = '$host' and nodeport = $port")" ]; then
    q -c "select citus_add_node('$host', $port)" >/dev/null
  fi
done
echo "Citus coordinator $COORDINATOR with workers: $(q -c "select string_agg(nodename || ':' || nodeport, ' ' order by nodeport) from pg_dist_node where noderole = 'primary' and groupid <> 0")"
