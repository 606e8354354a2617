import { existsSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { Ajv } from 'ajv';
import ajvFormats from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { CITUS_VERSION, PG_MAJOR } from '../../../../scripts/citus/cluster.ts';

// ajv-formats is CommonJS: seen from ESM, its plugin is the module's `default` property.
const addFormats = (ajvFormats as unknown as { default: (ajv: Ajv) => Ajv }).default;

/**
 * The compose files, checked as far as a machine without Docker can: against the Compose Specification's JSON
 * schema (infra/container/compose-spec.json; its source: compose-spec.SOURCE.md), and for what a production
 * stack needs: API nodes built from the repository's Dockerfile rather than the sources mounted into a Node
 * image, nothing of the repository mounted but read-only configuration, Caddy balancing over every API node.
 */
const ROOT = path.resolve(import.meta.dirname, '../../../..');
const INFRA = path.join(ROOT, 'infra');
const schema = JSON.parse(readFileSync(path.join(INFRA, 'container/compose-spec.json'), 'utf8')) as Record<string, unknown>;
// The file names its meta-schema without the trailing '#' ajv registers draft-07 under; the keywords are draft-07's.
const validate = addFormats(new Ajv({ allErrors: true, strict: false, validateSchema: false })).compile(schema);

interface Service {
  build?: { context: string; dockerfile: string };
  image?: string;
  volumes?: (string | { type: string; source: string; read_only?: boolean })[];
  depends_on?: Record<string, { condition: string }>;
  environment?: Record<string, string>;
}
type ComposeFile = { services: Record<string, Service> };

/** A compose file as Compose reads it: YAML with merge keys (`<<: *api`) resolved. */
const composeFile = (name: string) => parse(readFileSync(path.join(INFRA, name), 'utf8'), { merge: true }) as ComposeFile;

/** The services built from the repository's own Dockerfile (compose.citus.yaml also builds its Citus nodes). */
const apiNodes = (file: ComposeFile) => Object.entries(file.services).filter(([, s]) => s.build?.dockerfile === 'Dockerfile');

describe.each(['compose.yaml', 'compose.citus.yaml'])('infra/%s', (name) => {
  const file = composeFile(name);

  it('is valid by the Compose Specification schema', () => {
    expect(validate(file) ? [] : validate.errors).toEqual([]);
  });

  it('runs two API nodes from the repository Dockerfile, with the settings every node needs', () => {
    const nodes = apiNodes(file);
    expect(nodes.map(([n]) => n)).toEqual(['api-1', 'api-2']);
    for (const [, node] of nodes) {
      expect(existsSync(path.join(INFRA, node.build?.context ?? '', node.build?.dockerfile ?? ''))).toBe(true);
      expect(path.resolve(INFRA, node.build?.context ?? '')).toBe(ROOT);
      expect(Object.keys(node.environment ?? {})).toEqual(
        expect.arrayContaining([
          'DATABASE_URL',
          'REDIS_URL',
          'APP_URL',
          'BASE_URL',
          'APP_SECRET',
          'TRUST_PROXY',
          'TRUST_PROXY_HOPS',
        ]),
      );
      // A secret compose refuses to start without, not a default everyone shares.
      expect(node.environment?.APP_SECRET).toMatch(/^\$\{APP_SECRET:\?/);
    }
  });

  it('mounts nothing of the repository but read-only configuration files (nothing installs or builds into a mount)', () => {
    for (const [service, s] of Object.entries(file.services)) {
      for (const volume of s.volumes ?? []) {
        const [source = '', , mode] = typeof volume === 'string' ? volume.split(':') : [volume.source];
        if (!source.startsWith('.')) continue; // a named volume
        const mounted = path.join(INFRA, source);
        expect({ service, source, file: existsSync(mounted) && statSync(mounted).isFile(), mode }).toEqual({
          service,
          source,
          file: true,
          mode: 'ro',
        });
      }
    }
  });

  it("starts Caddy once every API node answers its image's health check, and Caddy balances over all of them", () => {
    const caddy = Object.values(file.services).find((s) => s.image?.startsWith('caddy:'));
    const nodes = apiNodes(file).map(([n]) => n);
    expect(caddy?.depends_on).toEqual(Object.fromEntries(nodes.map((n) => [n, { condition: 'service_healthy' }])));
    const caddyfile = readFileSync(path.join(INFRA, 'Caddyfile'), 'utf8');
    const upstreams = /reverse_proxy ([^{]+)\{/.exec(caddyfile)?.[1]?.trim().split(/\s+/);
    expect(upstreams).toEqual(nodes.map((n) => `${n}:8080`));
  });
});

describe('infra/compose.citus.yaml and the test lane', () => {
  const file = composeFile('compose.citus.yaml');
  const citusNodes = Object.entries(file.services).filter(([, s]) => s.build?.dockerfile === 'infra/citus/Dockerfile');

  it('builds its coordinator and workers with the Citus version and the build script the lane uses', () => {
    expect(citusNodes.map(([n]) => n)).toEqual(['coordinator', 'worker1', 'worker2']);
    const dockerfile = readFileSync(path.join(INFRA, 'citus/Dockerfile'), 'utf8');
    expect(dockerfile).toContain(`citus-${CITUS_VERSION}.tar.gz`);
    expect(dockerfile).toMatch(/^RUN .*bash \/build\/scripts\/citus\/build\.sh/m);
    expect(dockerfile).toMatch(new RegExp(`^FROM postgres:${PG_MAJOR}-`, 'm'));
    expect(readFileSync(path.join(ROOT, 'scripts/citus/build.sh'), 'utf8')).toContain(`CITUS_VERSION=${CITUS_VERSION}`);
    // The settings the lane's nodes get (scripts/citus/cluster.ts).
    expect(dockerfile).toContain('shared_preload_libraries=citus');
  });

  it('registers the workers with the script the lane runs, before any API node starts', () => {
    const setup = file.services['citus-setup'];
    expect(setup?.volumes).toEqual(['./citus/setup.sh:/setup.sh:ro']);
    expect(setup?.environment?.WORKERS).toBe('worker1:5432 worker2:5432');
    expect(readFileSync(path.join(ROOT, 'scripts/citus/cluster.ts'), 'utf8')).toContain("'../../infra/citus/setup.sh'");
    for (const [, node] of apiNodes(file)) {
      expect(node.depends_on?.['citus-setup']).toEqual({ condition: 'service_completed_successfully' });
    }
  });
});

describe('the schema check', () => {
  it('refuses what Compose would refuse', () => {
    const broken = {
      services: { api: { image: 'x', bulid: { context: '..' }, depends_on: { db: { condition: 'service_ready' } } } },
    };
    expect(validate(broken)).toBe(false);
    expect(validate.errors?.map((e) => `${e.instancePath} ${e.message}`)).toEqual(
      expect.arrayContaining([
        '/services/api must NOT have additional properties',
        '/services/api/depends_on/db/condition must be equal to one of the allowed values',
      ]),
    );
  });
});
