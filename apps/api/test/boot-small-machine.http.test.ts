// The service on the embedded PostgreSQL started with infra/postgres/1gb.conf (POSTGRES_SETTINGS_FILE): the
// settings documented for a 1 GB machine are the ones PostgreSQL runs with, and the service serves with them
// (a page report collected, then counted in the site's summary).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { readPostgresSettings } from '@us/db';
import { scopesOfRole } from '@us/shared';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureAccount, ensureSite } from '../scripts/seed/accounts.ts';
import { type Running, start } from '../src/boot.ts';
import { parseEnv } from '../src/core/env.ts';
import { issueToken } from '../src/features/tokens/issue.ts';
import { pageReport } from './support/collect.ts';

const SETTINGS_FILE = path.resolve(import.meta.dirname, '../../../infra/postgres/1gb.conf');
const BROWSER = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';

describe('the service with the PostgreSQL settings of a 1 GB machine', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'us-1gb-'));
  let running: Running;

  beforeAll(async () => {
    running = await start(parseEnv({ PORT: '0', DATA_DIR: dataDir, LOG_LEVEL: 'error', POSTGRES_SETTINGS_FILE: SETTINGS_FILE }));
  }, 120_000);

  afterAll(async () => {
    await running?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('runs PostgreSQL with every setting of the file', async () => {
    const wanted = readPostgresSettings(SETTINGS_FILE);
    expect(Object.keys(wanted)).toEqual(expect.arrayContaining(['shared_buffers', 'work_mem', 'max_connections']));
    const conn = running.deps.orm.em.getConnection();
    // SHOW prints each as PostgreSQL reads it back (sizes in the largest whole unit: 128MB, 4MB).
    const shown: Record<string, string> = {};
    for (const name of Object.keys(wanted)) {
      const [row] = await conn.execute<Record<string, string>[]>(`show ${name}`, [], 'all');
      shown[name] = Object.values(row ?? {})[0] as string;
    }
    expect(shown).toEqual(wanted);
  });

  it('collects a page report and counts it in the summary', async () => {
    const em = running.deps.orm.em.fork();
    const { user, workspace } = await ensureAccount(em, {
      email: 'small@example.test',
      password: 'small-machine-password-123',
      workspaceName: 'Small machine',
    });
    const hostname = 'small.example.test';
    const { site, publicKey } = await ensureSite(em, { workspaceId: workspace.id, name: 'Small', hostname, timezone: 'UTC' });
    const { secret } = await issueToken(em, {
      workspaceId: workspace.id,
      createdBy: user.id,
      name: 'small',
      scopes: scopesOfRole('owner'),
    });

    const collected = await fetch(`${running.url}/collect`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', origin: `https://${hostname}`, 'user-agent': BROWSER },
      body: JSON.stringify(pageReport({ publicKey, hostname })),
    });
    expect(collected.status).toBe(202);
    await running.deps.ingest.flushNow();

    const summary = await fetch(`${running.url}/v1/sites/${site.id}/summary?days=1`, {
      headers: { authorization: `Bearer ${secret}` },
    });
    expect(summary.status).toBe(200);
    expect(await summary.json()).toMatchObject({ measures: { pageviews: { value: 1 } } });
  });
});
