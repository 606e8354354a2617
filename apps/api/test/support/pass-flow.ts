import { PASS_COOKIE } from '@us/protection';
import { answerTo } from './check.ts';
import type { GateSite } from './gate.ts';
import type { TestServer } from './server.ts';

/** One browser: its address (the server runs with TRUST_PROXY, so X-Forwarded-For names it) and user agent. */
export interface Browser {
  ip: string;
  ua: string;
}

/**
 * What a challenged browser does, end to end against the real service: opens the check page the decide
 * endpoint sent it to, solves its proof of work and posts the answer, then follows the redirect to
 * `/_us/pass` on the site's hostname as the edge SDK forwards it. Answers the `us_pass` value it was given.
 */
export async function passTheCheck(t: TestServer, site: Pick<GateSite, 'secret' | 'hostname'>, challengeUrl: string, b: Browser) {
  const url = new URL(challengeUrl);
  const page = await t.request
    .get(`${url.pathname}${url.search}`)
    .set('X-Forwarded-For', b.ip)
    .set('User-Agent', b.ua)
    .expect(200);
  const answered = await t.request
    .post(url.pathname)
    .set('X-Forwarded-For', b.ip)
    .set('User-Agent', b.ua)
    .set('Content-Type', 'application/x-www-form-urlencoded')
    .send(answerTo(page.text))
    .expect(303);
  const back = new URL(answered.headers.location as string);
  if (back.hostname !== site.hostname || back.pathname !== '/_us/pass') throw new Error(`sent to ${back.href}`);
  const pass = await t.request
    .get(`${back.pathname}${back.search}`)
    .set({
      'x-forwarded-host': site.hostname,
      'x-forwarded-proto': 'https',
      'x-svc-proxy': site.secret,
      'x-svc-client-ip': b.ip,
      'User-Agent': b.ua,
    })
    .expect(303);
  const cookie = ([] as string[])
    .concat((pass.headers['set-cookie'] as string[] | undefined) ?? [])
    .find((c) => c.startsWith(`${PASS_COOKIE}=`));
  if (!cookie) throw new Error('no us_pass was set');
  return (cookie.split(';')[0] as string).slice(PASS_COOKIE.length + 1);
}
