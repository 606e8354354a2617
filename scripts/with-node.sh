#!/usr/bin/env bash
# Entry point of every root npm script. Makes sure a Node >= 22.17 and the project's dependencies
# are present (installing Node 24 from the npm registry into .tools/ when the machine's Node is
# older), then runs the named task with that Node first on PATH.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"

node_ok() {
  command -v node >/dev/null 2>&1 || return 1
  node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>22||(a===22&&b>=17)?0:1)'
}

if ! node_ok; then
  tools="$root/.tools/node24"
  if [ ! -x "$tools/node_modules/.bin/node" ]; then
    echo "› Node $(node --version 2>/dev/null || echo none) is older than 22.17: installing Node 24 into .tools/ (once)" >&2
    mkdir -p "$tools"
    npm install --prefix "$tools" --no-save --no-package-lock --loglevel=error node@24 >&2
  fi
  export PATH="$tools/node_modules/.bin:$PATH"
fi

# Install dependencies when missing or older than the lockfile. `npm install` rather than `npm ci`:
# the registry reachable here lacks other platforms' optional binaries (biome, turbo), which `npm ci`
# insists on finding in the lockfile; with the lockfile in sync, `npm install` installs exactly it.
if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "› installing dependencies (npm install from package-lock.json)" >&2
  npm install --loglevel=error --no-audit --no-fund >&2
fi

export PATH="$root/node_modules/.bin:$PATH"

# The API process's glibc settings (apps/api/node-flags.json's env; a value set already wins), for the bench: it
# runs the API's rollups in threads of its own process, and glibc reads them only as a process starts.
api_env() {
  eval "$(node -e 'for (const [k, v] of Object.entries(require("./apps/api/node-flags.json").env)) if (process.env[k] === undefined) console.log(`export ${k}=${v}`)')"
}

task="${1:-}"; shift || true
case "$task" in
  start) exec node scripts/start.mjs "$@" ;;
  test)  exec node scripts/test.mjs "$@" ;;
  build) exec turbo run build --output-logs=errors-only "$@" ;;
  bench) api_env; exec node --conditions=@unseen-stats/source --import tsx apps/api/bench/run.ts "$@" ;;
  bench-profile) api_env; exec node --conditions=@unseen-stats/source --import tsx apps/api/bench/profile.ts "$@" ;;
  screenshots) turbo run build --output-logs=errors-only --filter=@us/web && exec vitest run --config vitest.shots.config.ts "$@" ;;
  exec)  exec "$@" ;;
  *) echo "usage: with-node.sh start|test|build|bench|bench-profile|screenshots|exec CMD..." >&2; exit 2 ;;
esac
