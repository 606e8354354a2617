// Channels at intake: a pageview report stores its source (utm_source, else the referrer's family, else
// its host) and channel, derived from the referrer, the utm parameters and an ad click id of the page URL.
// The click id itself is never stored.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CollectSite, collectSite, postReport } from '../../support/collect.ts';
import { startTestServer, type TestServer } from '../../support/server.ts';

type Stored = { source: string | null; channel: string | null; referrer_host: string | null; row: string };

describe('POST /collect: source and channel of a pageview', () => {
  let t: TestServer;
  let site: CollectSite;

  beforeAll(async () => {
    t = await startTestServer();
    site = await collectSite(t, 'channels.example');
  });
  afterAll(() => t.close());

  /** Posts a pageview of `page` (a path and query on the site) from `referrer`, and answers its stored row. */
  async function pageview(page: string, referrer = ''): Promise<Stored | undefined> {
    const id = `pv${Math.random().toString(36).slice(2, 12)}`;
    await postReport(t, site, { extra: { id, u: `https://${site.hostname}${page}`, r: referrer } }).expect(202);
    await t.deps.ingest.flushNow();
    const [row] = await t.deps.orm.em
      .fork()
      .execute<Stored[]>(
        'select source, channel, referrer_host, to_json(p)::text as row from pageviews p where site_id = ? and pageview_id = ?',
        [site.siteId, id],
      );
    return row;
  }

  it('groups a referrer by family and names its channel', async () => {
    expect(await pageview('/', 'https://www.google.co.uk/')).toMatchObject({
      source: 'Google',
      channel: 'Organic Search',
      referrer_host: 'www.google.co.uk',
    });
    expect(await pageview('/', 'https://lm.facebook.com/l.php?u=x')).toMatchObject({
      source: 'Facebook',
      channel: 'Organic Social',
    });
    expect(await pageview('/', 'https://mail.google.com/')).toMatchObject({ source: 'Gmail', channel: 'Email' });
    expect(await pageview('/', 'https://chatgpt.com/')).toMatchObject({ source: 'ChatGPT', channel: 'AI assistants' });
    expect(await pageview('/', 'https://blog.example.org/post')).toMatchObject({
      source: 'blog.example.org',
      channel: 'Referral',
    });
    expect(await pageview('/')).toMatchObject({ source: null, channel: 'Direct' });
  });

  it('reads utm parameters and click ids of the page URL, and stores no click id', async () => {
    const paid = await pageview('/pricing?gclid=Cj0KCQsecret123');
    expect(paid).toMatchObject({ source: null, channel: 'Paid Search', referrer_host: null });
    expect(paid?.row).not.toContain('Cj0KCQsecret123');
    expect(await pageview('/?fbclid=IwAR0abc', 'https://m.facebook.com/')).toMatchObject({ channel: 'Organic Social' });
    expect(await pageview('/?ttclid=x1')).toMatchObject({ channel: 'Paid Social' });
    expect(await pageview('/?utm_source=weekly&utm_medium=newsletter', 'https://mail.google.com/')).toMatchObject({
      source: 'weekly',
      channel: 'Email',
    });
  });

  it("keeps a referrer on the site's own hostname as before: its host is the source, a referral", async () => {
    expect(await pageview('/b', `https://${site.hostname}/a`)).toMatchObject({
      source: site.hostname,
      channel: 'Referral',
      referrer_host: site.hostname,
    });
  });
});
