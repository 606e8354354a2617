// PORT, METRICS_PORT and HOST as the start reads them: one port cannot serve both, and HOST must be an address.
import { describe, expect, it } from 'vitest';
import { ConfigError, parseEnv } from '../../src/core/env.ts';

describe('PORT and METRICS_PORT', () => {
  it('refuses METRICS_PORT equal to PORT, saying which port to pick instead', () => {
    expect(() => parseEnv({ PORT: '8080', METRICS_PORT: '8080' })).toThrow(ConfigError);
    expect(() => parseEnv({ METRICS_PORT: '8080' })).toThrow(
      /METRICS_PORT: 8080 is PORT too; metrics need a port of their own \(e\.g\. 9464\)/,
    );
    expect(() => parseEnv({ PORT: '9464', METRICS_PORT: '9464' })).toThrow(/e\.g\. 9465/);
  });

  it('takes two different ports, and no METRICS_PORT at all', () => {
    expect(parseEnv({ PORT: '8080', METRICS_PORT: '9464' })).toMatchObject({ PORT: 8080, METRICS_PORT: 9464 });
    expect(parseEnv({ PORT: '8080' }).METRICS_PORT).toBeUndefined();
  });
});

describe('HOST', () => {
  it('takes IP addresses and host names', () => {
    for (const host of ['127.0.0.1', '0.0.0.0', '::', '::1', 'localhost', 'stats-1.internal', '10.0.0.12']) {
      expect(parseEnv({ HOST: host }).HOST).toBe(host);
    }
  });

  it('refuses what no server can listen on, naming the setting, instead of failing later on a URL made of it', () => {
    for (const host of ['999.1.1.1', '127.0.0', 'http://127.0.0.1', '127.0.0.1:8080', 'two words', '-bad.example']) {
      expect(() => parseEnv({ HOST: host }), host).toThrow(/HOST: must be an IP address/);
    }
  });
});
