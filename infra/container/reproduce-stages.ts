// The Dockerfile's stages without Docker (these machines have none): reads the repository's Dockerfile and
// performs each stage in a folder of its own under a temporary folder, then, with --start, runs the runtime
// stage's CMD from its folder with its ENV (the caller's environment wins, as `docker run -e` does) and passes
// SIGTERM/SIGINT on. apps/api/test/ship/production-build.http.test.ts runs it: one path for the image and the test.
//
//   node --import tsx infra/container/reproduce-stages.ts [--reuse-build] [--workdir DIR] [--start]
//
// What is performed: COPY (from the build context, honouring .dockerignore, or from an earlier stage), WORKDIR,
// ENV, and the `npm …` RUN steps, in the stage's folder (npm takes what it can from its cache:
// npm_config_prefer_offline). What is not: the base image (this machine's Node stands in for it), RUN steps on
// system paths (printed), USER, VOLUME, EXPOSE, STOPSIGNAL and HEALTHCHECK (recorded; the test uses the last two).
// --reuse-build: the build stage is this checkout, already built (`npm run build`), instead of a fresh copy
// with a full `npm ci` and build.
import { spawn, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';

export interface Instruction {
  keyword: string;
  args: string;
}

export interface Stage {
  name: string;
  instructions: Instruction[];
}

/** A Dockerfile's stages and their instructions (continued lines joined, comments and parser directives left out). */
export function parseDockerfile(text: string): Stage[] {
  const stages: Stage[] = [];
  const logical = text.replace(/\\\r?\n/g, ' ').split(/\r?\n/);
  for (const raw of logical) {
    const line = raw.trim();
    if (!line || line.startsWith('#')) continue;
    const [, keyword = '', args = ''] = /^(\S+)\s*(.*)$/.exec(line) ?? [];
    const instruction = { keyword: keyword.toUpperCase(), args: args.replace(/\s+/g, ' ').trim() };
    if (instruction.keyword === 'FROM') {
      const name = /\bAS\s+(\S+)$/i.exec(instruction.args)?.[1] ?? String(stages.length);
      stages.push({ name, instructions: [] });
    } else if (instruction.keyword !== 'ARG' || stages.length) {
      stages.at(-1)?.instructions.push(instruction);
    }
  }
  return stages;
}

/** The argument list of an exec-form instruction (`CMD ["node", "x.js"]`); null for the shell form. */
export function execForm(args: string): string[] | null {
  if (!args.startsWith('[')) return null;
  const parsed = JSON.parse(args) as unknown;
  return Array.isArray(parsed) && parsed.every((a) => typeof a === 'string') ? parsed : null;
}

/** `KEY=value KEY2=value2` (ENV); values here have no spaces. */
export function envPairs(args: string): Record<string, string> {
  return Object.fromEntries(
    args.split(' ').map((pair) => {
      const at = pair.indexOf('=');
      return [pair.slice(0, at), pair.slice(at + 1).replace(/^"(.*)"$/, '$1')];
    }),
  );
}

/** What the runtime stage leaves to run: its folder, environment, command and the settings Docker would apply. */
export interface Reproduced {
  dir: string;
  env: Record<string, string>;
  cmd: string[];
  user?: string;
  stopSignal?: string;
  healthcheck?: string[];
  /** RUN steps on system paths, not performed here. */
  notPerformed: string[];
}

/** The .dockerignore patterns as a test of a context-relative path (a pattern also covers what is under it). */
function ignoredBy(context: string): (file: string) => boolean {
  const file = path.join(context, '.dockerignore');
  if (!existsSync(file)) return () => false;
  const patterns = readFileSync(file, 'utf8')
    .split('\n')
    .map((l) => l.trim())
    .filter((l) => l && !l.startsWith('#'))
    .map((p) => {
      const piece = (glob: string) => glob.replace(/[.+^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '[^/]*');
      const body = p.replace(/^\//, '').split('**/').map(piece).join('(?:.*/)?');
      return new RegExp(`^${body}(?:/.*)?$`);
    });
  return (rel) => patterns.some((re) => re.test(rel));
}

/** The build context's files as `COPY . .` sends them: tracked and untracked-not-ignored files, less .dockerignore. */
function contextFiles(context: string): string[] {
  const listed = spawnSync('git', ['ls-files', '--cached', '--others', '--exclude-standard', '-z'], {
    cwd: context,
    encoding: 'utf8',
  });
  if (listed.status !== 0) throw new Error(`git ls-files failed in ${context}: ${listed.stderr}`);
  const ignored = ignoredBy(context);
  return listed.stdout.split('\0').filter((f) => f && !ignored(f) && existsSync(path.join(context, f)));
}

export interface ReproduceOptions {
  /** The build context (the repository). */
  context: string;
  /** Where the stages' folders go (default: a new temporary folder). */
  workdir?: string;
  /** The build stage is `context` itself, already built. */
  reuseBuild?: boolean;
  log?: (line: string) => void;
}

/** Performs every stage of `<context>/Dockerfile`; returns what the last (runtime) stage runs. */
export function reproduceStages(opts: ReproduceOptions): Reproduced {
  const log = opts.log ?? ((line: string) => console.log(line));
  const context = path.resolve(opts.context);
  const workdir = opts.workdir ?? mkdtempSync(path.join(tmpdir(), 'us-image-'));
  const stages = parseDockerfile(readFileSync(path.join(context, 'Dockerfile'), 'utf8'));
  /** Where each stage's container root is on this machine. */
  const roots = new Map<string, string>();
  let result: Reproduced | undefined;

  for (const stage of stages) {
    const reused = opts.reuseBuild && stage.name === 'build';
    const root = reused ? context : path.join(workdir, stage.name);
    roots.set(stage.name, root);
    let cwd = '/';
    const env: Record<string, string> = {};
    const out: Reproduced = { dir: root, env, cmd: [], notPerformed: [] };
    // Container paths map into the stage's root, except in a reused build, whose /app is the checkout.
    const hostPath = (stageRoot: string, containerPath: string, stageName: string) =>
      opts.reuseBuild && stageName === 'build'
        ? path.join(stageRoot, path.relative('/app', containerPath))
        : path.join(stageRoot, containerPath);
    log(`› stage ${stage.name}${reused ? ` (reused: ${context}, built by npm run build)` : ` in ${root}`}`);

    for (const { keyword, args } of stage.instructions) {
      if (keyword === 'WORKDIR') {
        cwd = path.posix.resolve(cwd, args);
        if (!reused) mkdirSync(hostPath(root, cwd, stage.name), { recursive: true });
      } else if (keyword === 'ENV') {
        Object.assign(env, envPairs(args));
      } else if (keyword === 'COPY') {
        const words = args.split(' ');
        const from = words.find((w) => w.startsWith('--from='))?.slice('--from='.length);
        const [dest = '', ...sources] = words.filter((w) => !w.startsWith('--')).reverse();
        sources.reverse();
        const destContainer = path.posix.resolve(cwd, dest);
        const destHost = hostPath(root, destContainer, stage.name);
        // A reused build stage is the checkout: what it would copy is there already.
        if (reused) continue;
        for (const source of sources) {
          if (from) {
            const fromRoot = roots.get(from);
            if (!fromRoot) throw new Error(`COPY --from=${from}: no such stage before ${stage.name}`);
            const src = hostPath(fromRoot, path.posix.resolve('/', source), from);
            if (!existsSync(src))
              throw new Error(`COPY --from=${from} ${source}: ${src} does not exist (build first: npm run build)`);
            cpSync(src, destHost, { recursive: true, verbatimSymlinks: true });
          } else if (source === '.') {
            for (const f of contextFiles(context)) {
              mkdirSync(path.dirname(path.join(destHost, f)), { recursive: true });
              cpSync(path.join(context, f), path.join(destHost, f));
            }
          } else {
            const target = dest.endsWith('/') || sources.length > 1 ? path.join(destHost, path.basename(source)) : destHost;
            mkdirSync(path.dirname(target), { recursive: true });
            cpSync(path.join(context, source), target, { recursive: true });
          }
        }
      } else if (keyword === 'RUN') {
        if (reused) continue;
        if (!/^npm\s/.test(args)) {
          out.notPerformed.push(args);
          log(`  not performed here (system paths): RUN ${args}`);
          continue;
        }
        log(`  RUN ${args}`);
        const run = spawnSync('sh', ['-c', args], {
          cwd: hostPath(root, cwd, stage.name),
          env: { ...process.env, ...env, npm_config_prefer_offline: 'true' },
          stdio: ['ignore', 'inherit', 'inherit'],
        });
        if (run.status !== 0) throw new Error(`RUN ${args} failed in stage ${stage.name} (${run.status ?? run.signal})`);
      } else if (keyword === 'CMD') {
        out.cmd = execForm(args) ?? ['sh', '-c', args];
      } else if (keyword === 'HEALTHCHECK') {
        const at = args.indexOf('CMD ');
        if (at >= 0) out.healthcheck = execForm(args.slice(at + 'CMD '.length)) ?? ['sh', '-c', args.slice(at + 4)];
      } else if (keyword === 'STOPSIGNAL') {
        out.stopSignal = args;
      } else if (keyword === 'USER') {
        out.user = args;
      }
    }
    out.dir = hostPath(root, cwd, stage.name);
    result = out;
  }
  if (!result) throw new Error('the Dockerfile has no stage');
  return result;
}

/** The image's `node` is this machine's Node (the one running this script). */
export const onThisNode = (argv: string[]) => (argv[0] === 'node' ? [process.execPath, ...argv.slice(1)] : argv);

async function main() {
  const args = process.argv.slice(2);
  const workdirAt = args.indexOf('--workdir');
  const image = reproduceStages({
    context: path.resolve(import.meta.dirname, '../..'),
    workdir: workdirAt >= 0 ? args[workdirAt + 1] : undefined,
    reuseBuild: args.includes('--reuse-build'),
  });
  console.log(`› runtime stage in ${image.dir}: ${image.cmd.join(' ')} (as user ${image.user ?? 'root'} in the image)`);
  if (!args.includes('--start')) return;
  const [command = '', ...rest] = onThisNode(image.cmd);
  const server = spawn(command, rest, { cwd: image.dir, env: { ...image.env, ...process.env }, stdio: 'inherit' });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) process.on(signal, () => server.kill(signal));
  server.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

if (process.argv[1] && path.resolve(process.argv[1]) === import.meta.filename) await main();
