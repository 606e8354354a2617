import { describe, expect, it } from 'vitest';
import { offlineData, staleOfflineData } from '../src/startup-checks.ts';

/** The offline data start-up dates: every piece the service ships, each with a date that reads. */
describe('offline data at start-up', () => {
  it('dates the country and network tables, the crawler ranges and the bot lists', () => {
    const data = offlineData();
    expect(data.map((d) => d.what)).toEqual([
      expect.stringMatching(/^Country-by-address data \(@ip-location-db\/geo-whois-asn-country-mmdb \d/),
      expect.stringMatching(/^Network-operator \(ASN\) data \(@ip-location-db\/asn \d/),
      expect.stringMatching(/^Crawler operators' IP ranges/),
      expect.stringMatching(/^Bot user-agent patterns/),
      expect.stringMatching(/^AI agent names/),
      expect.stringMatching(/^Well-known bots/),
      expect.stringMatching(/^Hosting networks/),
    ]);
    for (const d of data) expect(d.date, d.what).toMatch(/^20\d\d-\d\d-\d\d$/);
  });

  it('warns about none on the day of the oldest date, and about each once the newest is 91 days old', () => {
    const data = offlineData();
    const newest = data
      .map((d) => d.date)
      .sort()
      .at(-1) as string;
    const oldest = data.map((d) => d.date).sort()[0] as string;
    expect(staleOfflineData(new Date(`${oldest}T12:00:00Z`))).toEqual([]);
    const later = new Date(Date.parse(`${newest}T00:00:00Z`) + 91 * 86_400_000);
    const lines = staleOfflineData(later);
    expect(lines).toHaveLength(data.length);
    expect(lines[2]).toMatch(/^Crawler operators' IP ranges .* is from \d{4}-\d\d-\d\d, \d+ days old: fetch each list/);
  });
});
