import { createHash, randomBytes } from 'node:crypto';
import { SiteHostname } from '@us/db';
import { issueTicket, type Ticket } from '@us/protection';
import { passKeyOf } from '../../src/features/protection/pass-key.ts';
import { createKeyRow } from '../../src/features/site-keys/keys.ts';
import { createUser, type TestServer } from './server.ts';
import { createSite } from './sites.ts';

/**
 * A site for the bot check: a pass key, a server secret, and one hostname of each kind: verified by
 * DNS, added but unverified, proxy mode validated by the edge (active), proxy mode still pending.
 */
export async function checkSite(t: TestServer) {
  const { workspace } = await createUser(t.deps);
  const em = t.deps.orm.em.fork();
  const { site } = await createSite(em, { workspace: workspace.id, name: 'Checked shop' });
  const tag = randomBytes(5).toString('hex');
  const hosts = {
    verified: `shop.c${tag}.example.test`,
    unverified: `new.c${tag}.example.test`,
    proxyActive: `proxy.c${tag}.example.test`,
    proxyPending: `pending.c${tag}.example.test`,
  };
  const row = (hostname: string, extra: Partial<SiteHostname>) =>
    em.create(SiteHostname, { site, hostname, verifyToken: 'v'.repeat(32), verifiedAt: null, ...extra });
  row(hosts.verified, { verifiedAt: new Date() });
  row(hosts.unverified, {});
  row(hosts.proxyActive, {
    proxy: true,
    origin: 'https://origin.example.test',
    edgeId: `e-${tag}`,
    edgeStatus: 'active',
    verifiedAt: new Date(),
  });
  row(hosts.proxyPending, { proxy: true, origin: 'https://origin.example.test', edgeId: `p-${tag}`, edgeStatus: 'pending' });
  const secret = createKeyRow(em, site.id, 'secret').value;
  await em.flush();
  const passKey = await passKeyOf(t.deps, t.deps.orm.em.fork(), site.id);
  // Tickets are deterministic (the same fields in the same second seal the same): each gets a path of its own.
  let n = 0;
  const ticket = (fields: Partial<Omit<Ticket, 'e'>> = {}, now = Date.now()) =>
    issueTicket(passKey, { s: site.id, h: hosts.verified, p: `/shop/cart?x=${++n}`, r: 0, ...fields }, now);
  return { siteId: site.id, hosts, secret, passKey, ticket };
}
export type CheckSite = Awaited<ReturnType<typeof checkSite>>;

/** The hidden fields and work of a check page, read from its HTML as a browser would. */
export function formOf(html: string) {
  const attr = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(html)?.[1] ?? '';
  const field = (name: string) => new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&') ?? '';
  return {
    challenge: attr('data-c'),
    bits: Number(attr('data-b')),
    t: field('t'),
    b: field('b'),
    i: field('i'),
    action: attr('action'),
  };
}

/** The answer the page script finds: the first eight nonces with `bits - 3` zero bits, one after the other. */
export function solve(challenge: string, bits: number): string {
  const found: string[] = [];
  for (let n = 0; found.length < 8; n++) {
    const nonce = n.toString(16).padStart(8, '0');
    const d = createHash('sha256').update(`${challenge}${nonce}`, 'latin1').digest();
    if (d.readUInt32BE(0) >>> (32 - (bits - 3)) === 0) found.push(nonce);
  }
  return found.join('');
}

/** A solved answer to a check page, as the page's form posts it; `over` replaces fields. */
export function answerTo(html: string, over: Record<string, string> = {}): string {
  const f = formOf(html);
  return new URLSearchParams({
    t: f.t,
    b: f.b,
    i: f.i,
    n: solve(f.challenge, f.bits),
    wd: '0',
    tm: '1',
    ms: '900',
    ...over,
  }).toString();
}

/** The grant in a passed answer's Location. */
export function grantOf(location: string | undefined): string {
  const g = new URL(location ?? 'http://x/').searchParams.get('g');
  if (!g) throw new Error(`no grant in ${location}`);
  return g;
}
