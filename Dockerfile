# syntax=docker/dockerfile:1
# The service's image (docs/operations/deploy.md, "The container image"): dependencies and build in stages of
# their own, and a runtime stage holding only the production dependencies and the built files.
# infra/container/reproduce-stages.ts reads this file and performs its stages in temporary folders (these
# machines have no Docker); apps/api/test/ship/production-build.http.test.ts runs it and the result.
# Build: docker build -t unseen-stats .    Run: infra/compose.yaml

ARG NODE_IMAGE=node:24-slim

# The production dependencies of every workspace, nothing else: no devDependencies, no build tools.
FROM ${NODE_IMAGE} AS deps
WORKDIR /app
COPY package.json package-lock.json ./
COPY apps/api/package.json apps/api/
COPY apps/script/package.json apps/script/
COPY apps/web/package.json apps/web/
COPY packages/db/package.json packages/db/
COPY packages/edge/package.json packages/edge/
COPY packages/protection/package.json packages/protection/
COPY packages/shared/package.json packages/shared/
RUN npm ci --omit=dev --no-audit --no-fund

# Every dependency and the sources: `npm run build` bundles the API and builds the dashboard and page script.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund
RUN npm run build

# What runs: Node, the production dependencies and the built files, as the unprivileged `node` user.
FROM ${NODE_IMAGE} AS runtime
# MALLOC_ARENA_MAX, MALLOC_MMAP_THRESHOLD_: apps/api/node-flags.json's env (glibc reads it at start; a unit test holds them in step).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 DATA_DIR=/var/lib/unseen-stats MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536
WORKDIR /app
COPY --from=deps /app ./
COPY --from=build /app/apps/api/dist apps/api/dist
COPY --from=build /app/apps/web/dist apps/web/dist
COPY --from=build /app/apps/script/dist apps/script/dist
COPY --from=build /app/packages/edge/dist packages/edge/dist
# The package manager is not needed to run the service; DATA_DIR (ingest spill files, exports) is the one
# folder the service writes to.
RUN rm -rf /usr/local/lib/node_modules/npm /usr/local/lib/node_modules/corepack /usr/local/bin/npm /usr/local/bin/npx /usr/local/bin/corepack \
  && mkdir -p /var/lib/unseen-stats && chown node:node /var/lib/unseen-stats
VOLUME /var/lib/unseen-stats
USER node
EXPOSE 8080
# SIGTERM starts the orderly stop (requests in flight, the last flush, jobs, connections: at most 30 s).
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8080) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# The V8 flags are apps/api/node-flags.json's (a unit test holds them in step).
CMD ["node", "--enable-source-maps", "--no-memory-reducer", "apps/api/dist/main.js"]
