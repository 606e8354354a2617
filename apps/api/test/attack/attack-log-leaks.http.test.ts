import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/core/logger.ts';
import { captureLogs } from '../support/logs.ts';
import { createUser, GOOD_PASSWORD, startTestServer, type TestServer, uniqueEmail } from '../support/server.ts';

const outbox = (t: TestServer) =>
  readFileSync(path.join(t.deps.env.DATA_DIR, 'outbox.ndjson'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { to: string; subject: string; text: string });

/**
 * Logs are read by more people than mailboxes (operators, log shippers, support): in production a
 * sign-in link, an API token or a server secret must never land in them.
 */
describe('attack: reading links and secrets out of the log', () => {
  let logs: ReturnType<typeof captureLogs>;
  beforeEach(() => {
    logs = captureLogs();
  });

  describe('in production without SMTP_URL', () => {
    let t: TestServer;
    afterAll(() => t?.close());

    it('logs recipient and subject only; the outbox file keeps the whole mail', async () => {
      t = await startTestServer({ mail: 'outbox', env: { NODE_ENV: 'production', LOG_LEVEL: 'info' }, logs: logs.destination });
      const fresh = uniqueEmail('log-signup');
      await t.request.post('/v1/auth/signup').send({ email: fresh, password: GOOD_PASSWORD }).expect(202);
      const { email } = await createUser(t.deps);
      await t.request.post('/v1/auth/password/reset-request').send({ email }).expect(202);
      // The reset mail goes after the answer.
      await expect.poll(() => logs.text()).toContain('Reset your password');

      const logged = logs.text();
      expect(logged).toContain(fresh);
      expect(logged).toContain('Confirm your e-mail address');
      expect(logged).toContain('Reset your password');
      expect(logged).not.toMatch(/token=/);
      expect(logged).not.toContain('/verify?');
      expect(logged).not.toContain('/reset-password?');

      const kept = outbox(t);
      expect(kept.find((m) => m.to === fresh)?.text).toMatch(/\/verify\?token=[A-Za-z0-9_-]{20,}/);
      expect(kept.find((m) => m.to === email)?.text).toMatch(/\/reset-password\?token=[A-Za-z0-9_-]{20,}/);
    });
  });

  describe('in development without SMTP_URL', () => {
    let t: TestServer;
    afterAll(() => t?.close());

    it('logs the whole mail, link included, so a developer can follow it', async () => {
      t = await startTestServer({ mail: 'outbox', env: { NODE_ENV: 'development', LOG_LEVEL: 'info' }, logs: logs.destination });
      const fresh = uniqueEmail('log-dev');
      await t.request.post('/v1/auth/signup').send({ email: fresh, password: GOOD_PASSWORD }).expect(202);
      expect(logs.text()).toMatch(/\/verify\?token=[A-Za-z0-9_-]{20,}/);
    });
  });

  it('the production logger blanks API tokens, server secrets and token= values, in messages and errors', () => {
    const apiToken = 'ust_Zm9vYmFyYmF6cXV4cXV1eDEyMzQ1Njc4OTAxMjM0NQ';
    const secret = `sk_live_${'A1b2C3d4'.repeat(4)}`;
    const link = 'https://stats.example.com/reset-password?token=s3cr3t-l1nk-t0k3n&step=2';
    const log = createLogger('debug', { redact: true, destination: logs.destination });
    log.info(`made ${apiToken} for a proxy using ${secret}`);
    log.warn(`followed ${link}`);
    log.debug(`Authorization: Bearer ${apiToken}`);
    log.error('request failed', new Error(`upstream refused ${secret} at ${link}`));
    const logged = logs.text();
    for (const leak of [apiToken, secret, 's3cr3t-l1nk-t0k3n', apiToken.slice(4)]) expect(logged).not.toContain(leak);
    expect(logged).toContain('step=2');
    expect(logged).toContain('ust_');
    expect(logged).toContain('sk_live_');
  });
});
