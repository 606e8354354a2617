import { describe, expect, it } from 'vitest';
import { deviceSummary } from '../../../src/core/security/client-info.ts';

describe('the summary of a sign-in’s user agent', () => {
  it('names the browser and the system (strings from the corpora in packages/protection/test/corpora)', () => {
    expect(
      deviceSummary(
        'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Safari/605.1.15',
      ),
    ).toBe('Safari 17 on macOS');
    expect(deviceSummary(undefined)).toBeNull();
  });

  // The attack: a 16 KB header of `Version/` and digits; `Version/(\d+).*Safari` tried every shorter run of them,
  // ~0.25 s of the event loop a sign-in.
  it('reads a user agent to its first 1,024 characters: 200 headers of 16 KB in one pass each', () => {
    for (let i = 0; i < 200; i++) expect(deviceSummary(`Version/${'1'.repeat(16_000 + i)}`)).toBe('Unknown browser');
    expect(deviceSummary(`Mozilla/5.0 (X11; Linux x86_64)${' '.repeat(1_024)}Firefox/131.0`)).toBe('Unknown browser on Linux');
  });
});
