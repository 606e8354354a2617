import { PASS_UA_CHARS } from './pass.ts';
import { mac } from './signing.ts';

/**
 * Behaviour memory is filed under a one-way, daily-rotating visitor code (spec §2): HMAC of the address
 * and user agent under a key of the site and day, derived from the service's daily salt. The service hands
 * an edge its site's key of the day, so both compute the same code without the edge knowing the salt (or
 * any other site's key); once the day's salt is gone, nobody can link a code to an address again.
 */
export function dayKeyOf(dailySalt: string, siteId: string): Promise<string> {
  return mac(dailySalt, `behaviour\n${siteId}`, 32);
}

/** A visitor's code of the day: its user agent read to the characters a pass binds (records keep as many). */
export function behaviourCode(dayKey: string, ip: string, ua: string): Promise<string> {
  return mac(dayKey, `${ip}\n${ua.slice(0, PASS_UA_CHARS)}`, 12);
}
