// Alert webhooks as a way in: a URL pointing into the service's own network is refused when saved, and a
// receiver that hangs or answers without end holds up neither the e-mails of the run, nor other sites'
// alerts, nor collection.
import type { ServerResponse } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAlerts } from '../../src/features/alerts/alerts-job.ts';
import { alertsOwner, siteWithYesterday, webhookReceiver } from '../support/alerts.ts';
import { type callerFor, problemOf } from '../support/caller.ts';
import { collectSite, postReport } from '../support/collect.ts';
import { answerConfirmation } from '../support/report-optin.ts';
import { startTestServer, type TestServer } from '../support/server.ts';
import { createSite } from '../support/sites.ts';

describe('alert webhooks under attack', () => {
  let t: TestServer;
  let owner: ReturnType<typeof callerFor>;
  let workspaceId: string;
  let receiver: Awaited<ReturnType<typeof webhookReceiver>>;
  let base: string;
  /** Responses of calls that were never answered, ended at the end of the suite. */
  const held: ServerResponse[] = [];

  const spikingSite = async (name: string) =>
    (await siteWithYesterday(t, workspaceId, { name, usual: 20, yesterday: 50 })).siteId;

  beforeAll(async () => {
    receiver = await webhookReceiver((req, res) => {
      req.resume();
      if (req.url === '/hang') return void held.push(res);
      // An answer without end: only its first kilobyte is read.
      res.writeHead(200);
      const chunk = 'x'.repeat(16 * 1024);
      const pump = () => {
        while (!res.destroyed && res.write(chunk)) {}
        if (!res.destroyed) res.once('drain', pump);
      };
      pump();
    });
    base = receiver.base;
    t = await startTestServer({ env: { ALERT_WEBHOOKS_TO_LOOPBACK: 'true' } });
    ({ owner, workspaceId } = await alertsOwner(t));
  });
  afterAll(async () => {
    for (const res of held) res.destroy();
    await t.close();
    await receiver.close();
  });

  it.each([
    'https://10.0.0.5/hook',
    'https://192.168.1.1/hook',
    'https://169.254.169.254/latest/meta-data/',
    'https://[::ffff:10.0.0.1]/hook',
    'https://[fd00::1]/hook',
    'https://localhost/hook',
    'https://metadata/computeMetadata',
    'https://user:pass@hooks.example.com/x',
    'ftp://hooks.example.com/x',
  ])('refuses the webhook URL %s (400 naming webhookUrl)', async (url) => {
    const { siteId } = await createSite(t.deps.orm.em.fork(), { workspace: workspaceId, name: 'Prober' });
    expect(await problemOf(owner.alerts.create({ id: siteId, kind: 'first_pageview', webhookUrl: url }))).toMatchObject({
      status: 400,
      field: 'webhookUrl',
    });
  });

  it('a hook that hangs holds up no e-mail, no other site’s alert and no collection; it gives up after its tries', async () => {
    const hung = await spikingSite('Hung hook');
    const other = await spikingSite('Other site');
    await owner.alerts.create({
      id: hung,
      kind: 'traffic_spike',
      thresholdPercent: 100,
      recipients: ['hung@example.com'],
      webhookUrl: `${base}/hang`,
    });
    await answerConfirmation(t, 'hung@example.com', 'yes', 'alerts');
    await owner.alerts.create({ id: other, kind: 'traffic_spike', thresholdPercent: 100, recipients: ['other@example.com'] });
    await answerConfirmation(t, 'other@example.com', 'yes', 'alerts');
    const visited = await collectSite(t, 'still-counted.example');

    const started = Date.now();
    const run = runAlerts(t.deps.orm, t.deps, { siteIds: [hung, other], wait: true });
    // While the receiver holds the call: both e-mails are out, and pages are still collected.
    await t.smtp.waitFor('hung@example.com', /^Traffic spike on Hung hook$/);
    await t.smtp.waitFor('other@example.com', /^Traffic spike on Other site$/);
    await expect.poll(() => held.length).toBeGreaterThan(0);
    await postReport(t, visited).expect(202);
    await t.deps.ingest.flushNow();
    const [counted] = await t.deps.orm.em
      .fork()
      .execute<{ n: number }[]>('select count(*)::int as n from pageviews where site_id = ?', [visited.siteId]);
    expect(counted?.n).toBe(1);

    expect(await run).toEqual({ ran: true, fired: 2, failed: 0 });
    // Three tries of at most 5 seconds each (the pauses between them are the test's no-op sleep).
    expect(Date.now() - started).toBeLessThan(20_000);
    const [delivery] = await t.deps.orm.em
      .fork()
      .execute<{ webhook: string; webhook_status: number | null; mails: number }[]>(
        'select d.webhook, d.webhook_status, d.mails from alert_deliveries d join alerts a on a.id = d.alert_id where a.site_id = ?',
        [hung],
      );
    expect(delivery).toEqual({ webhook: 'failed', webhook_status: null, mails: 1 });
  }, 40_000);

  it('reads no more than the first kilobyte of an answer that never ends', async () => {
    const siteId = await spikingSite('Endless answer');
    const { alert } = await owner.alerts.create({
      id: siteId,
      kind: 'traffic_spike',
      thresholdPercent: 100,
      webhookUrl: `${base}/endless`,
    });
    expect(await runAlerts(t.deps.orm, t.deps, { siteIds: [siteId], wait: true })).toEqual({ ran: true, fired: 1, failed: 0 });
    const { deliveries } = await owner.alerts.deliveries({ id: siteId, alert: alert.id });
    expect(deliveries).toMatchObject([{ webhook: 'sent', webhookStatus: 200 }]);
  });
});
