// PORT and METRICS_PORT as the start reads them: one port cannot serve both.
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
