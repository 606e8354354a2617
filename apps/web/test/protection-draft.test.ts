import { describe, expect, it } from 'vitest';
import { draftOf, settingsErrorOf, settingsOf } from '../src/pages/sites/protection/draft.ts';
import type { BotSettings } from '../src/pages/sites/protection/types.ts';

const SAVED: BotSettings = {
  mode: 'challenge',
  bots: 'allow',
  rules: [
    { action: 'deny', label: 'No AI training', match: { category: 'ai-training' } },
    { action: 'challenge', match: { country: ['CN', 'RU'], asn: 16509, path: ['/admin', '/api'] } },
  ],
};

describe('the rule editor’s draft', () => {
  it('turns settings into edited text and back, unchanged', () => {
    expect(settingsOf(draftOf(SAVED))).toEqual(SAVED);
  });

  it('sends lists as typed: one item as a value, several as a list, AS numbers as numbers', () => {
    const d = draftOf(SAVED);
    const [first, second] = d.rules;
    if (!first || !second) throw new Error('two rules');
    second.asn = 'AS14061, 16509';
    second.country = ' Germany ,';
    first.label = '  ';
    first.ai = 'true';
    expect(settingsOf(d).rules).toEqual([
      { action: 'deny', match: { category: 'ai-training', ai: true } },
      { action: 'challenge', match: { asn: [14061, 16509], country: 'Germany', path: ['/admin', '/api'] } },
    ]);
  });

  it('puts a refusal under the field it names, naming the item of a list', () => {
    const d = draftOf(SAVED);
    const key = d.rules[1]?.key;
    const p = (field: string) => ({ status: 400, field, title: `Fix ${field}: Give a path prefix starting with /` });
    expect(settingsErrorOf(p('rules[1].match.path[1]'), d)).toEqual({
      at: 'rule',
      key,
      field: 'path',
      message: '“/api”: Give a path prefix starting with /',
    });
    expect(settingsErrorOf(p('rules[1].match.country'), d)).toMatchObject({ at: 'rule', key, field: 'country' });
    expect(settingsErrorOf(p('rules[1].match'), d)).toMatchObject({ at: 'rule', key, field: 'match' });
    expect(settingsErrorOf(p('rules[1].label'), d)).toMatchObject({ at: 'rule', key, field: 'label' });
    expect(settingsErrorOf(p('settings.rules[0].match.category'), d, 'settings.')).toMatchObject({ field: 'category' });
    expect(settingsErrorOf(p('mode'), d)).toMatchObject({ at: 'mode' });
    expect(settingsErrorOf(p('rules[7].match'), d)).toMatchObject({ at: 'form' });
    expect(settingsErrorOf({ status: 403, title: 'Missing scope bot:write' }, d)).toEqual({
      at: 'form',
      message: 'Missing scope bot:write',
    });
  });
});
