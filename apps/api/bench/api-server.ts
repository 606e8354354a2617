// The real service (embedded PostgreSQL in a temporary DATA_DIR, in-process hot state) plus a signed-up
// user and an API token, announced on stdout for the benchmark driver.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Membership, User, Workspace } from '@us/db';
import { scopesOfRole } from '@us/shared';
import { start } from '../src/boot.ts';
import { parseEnv } from '../src/env.ts';
import { hashPassword } from '../src/security/passwords.ts';
import { issueToken } from '../src/services/tokens.ts';

const dataDir = mkdtempSync(path.join(tmpdir(), 'us-bench-'));
const running = await start(
  parseEnv({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', NODE_ENV: 'production', MCP_CALLS_PER_MINUTE: '100000000' }),
);
const em = running.deps.orm.em.fork();
const user = em.create(User, {
  email: 'bench@example.test',
  passwordHash: await hashPassword('bench-password-123'),
  emailVerifiedAt: new Date(),
});
const workspace = em.create(Workspace, { name: 'Bench' });
em.create(Membership, { workspace, user, role: 'owner' });
await em.flush();
const { secret } = await issueToken(em, {
  workspaceId: workspace.id,
  createdBy: user.id,
  name: 'bench',
  scopes: scopesOfRole('owner'),
});
process.stdout.write(`${JSON.stringify({ url: running.url, token: secret })}\n`);
process.on('SIGTERM', async () => {
  await running.close();
  process.exit(0);
});
