// Settings that used to be taken and then broke the service later, quietly: each is refused at start, naming it.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../../src/core/env.ts';

describe('settings refused at start instead of failing later', () => {
  it('URLs must be http(s): "host:port" parsed as a URL of scheme "host:", and the breach check went quietly off', () => {
    for (const [name, value] of [
      ['PWNED_PASSWORDS_URL', 'hibp-mirror:8080'],
      ['EDGE_API_URL', 'edge:443'],
      ['EXPORT_S3_ENDPOINT', 'minio:9000'],
      ['APP_URL', 'ftp://stats.example.com'],
    ] as const) {
      expect(() => parseEnv({ [name]: value }), name).toThrow(ConfigError);
      expect(() => parseEnv({ [name]: value }), name).toThrow(new RegExp(`${name}: must be an http:// or https:// URL`));
    }
    expect(parseEnv({ PWNED_PASSWORDS_URL: 'http://127.0.0.1:8080' }).PWNED_PASSWORDS_URL).toBe('http://127.0.0.1:8080');
  });

  it('DNS_SERVERS must be addresses the resolver takes: every lookup failed on "1.1.1"', () => {
    for (const value of ['1.1.1', '10.0.0.256', 'cafe']) {
      expect(() => parseEnv({ DNS_SERVERS: value }), value).toThrow(/DNS_SERVERS: must be addresses/);
    }
    expect(parseEnv({ DNS_SERVERS: '1.1.1.1, 127.0.0.1:5353, [::1]:53' }).DNS_SERVERS).toBeDefined();
  });

  it('STATS_TIMEOUT_MS fits a timer: past 2^31-1 ms a timer fires at once, and every stats connection failed', () => {
    expect(() => parseEnv({ STATS_TIMEOUT_MS: '9999999999' })).toThrow(/STATS_TIMEOUT_MS/);
    expect(parseEnv({ STATS_TIMEOUT_MS: '60000' }).STATS_TIMEOUT_MS).toBe(60_000);
  });
});
