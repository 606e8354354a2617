import type { ProtectionSettings } from '@us/protection';
import { describe, expect, it } from 'vitest';
import { replay, type ShapeRow } from '../../../src/features/protection/dry-run.ts';

/** A site with 100 path rules of five prefixes each, the most a site may save, against many kinds of request. */
const RULES: ProtectionSettings = {
  mode: 'challenge',
  bots: 'challenge',
  rules: Array.from({ length: 100 }, (_, r) => ({
    action: 'challenge' as const,
    label: `area ${r}`,
    match: { path: Array.from({ length: 5 }, (_, p) => `/area-${r}/part-${p}`) },
  })),
};
const shape = (i: number): ShapeRow => ({
  fixed_path: null,
  sample_path: `/${'%00.'.repeat(100)}${i}`,
  kind: 'browser',
  bot_name: null,
  bot_category: null,
  verified: false,
  asn: 64500 + (i % 100),
  as_org: null,
  country: 'DE',
  flagged: false,
  n: 1,
  shapes: 20_000,
  total: 20_000,
});

describe('the dry run’s replay', () => {
  // The defect: the replay decided for up to its two seconds in one go, and every other request of the node waited.
  it('lets the event loop turn while it decides', async () => {
    const shapes = Array.from({ length: 20_000 }, (_, i) => shape(i));
    const order: string[] = [];
    setImmediate(() => order.push('another request'));
    const r = await replay(RULES, { ...RULES, rules: [] }, shapes, 1, { decideMs: 60_000, reasons: 20, examples: 3 });
    order.push('replay done');
    expect(order).toEqual(['another request', 'replay done']);
    // Every shape was still decided, and each matched no rule (no prefix is a beginning of these paths).
    expect(r.replayed).toBe(20_000);
    expect(r.cutShort).toBe(false);
  });

  it('stops deciding when its time runs out, and says so', async () => {
    const shapes = Array.from({ length: 20_000 }, (_, i) => shape(i));
    const r = await replay(RULES, RULES, shapes, 1, { decideMs: 0, reasons: 20, examples: 3 });
    expect(r.cutShort).toBe(true);
    expect(r.replayed).toBeLessThan(20_000);
  });
});
