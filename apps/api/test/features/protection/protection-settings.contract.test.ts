import * as gate from '@us/protection';
import * as shared from '@us/shared';
import { describe, expect, expectTypeOf, it } from 'vitest';

/** The service validates bot settings with zod (`@us/shared`); the gate reads them as plain types (`@us/protection`). */
describe('bot settings: the schema and the gate agree', () => {
  it('name the same modes, actions, categories and client kinds', () => {
    expect([...shared.BOT_MODES]).toEqual([...gate.PROTECTION_MODES]);
    expect([...shared.BOT_ACTIONS]).toEqual([...gate.ACTIONS]);
    expect([...shared.BOT_DEFAULTS]).toEqual([...gate.ACTIONS]);
    expect([...shared.BOT_CATEGORIES]).toEqual([...gate.CATEGORIES]);
    expect([...shared.CLIENT_KINDS]).toEqual([...gate.CLIENT_KINDS]);
    expect(shared.DEFAULT_BOT_SETTINGS).toEqual(gate.DEFAULT_PROTECTION);
  });

  it('every valid settings object is one the gate takes', () => {
    expectTypeOf<shared.BotSettings>().toExtend<gate.ProtectionSettings>();
    expectTypeOf<shared.Decision>().toExtend<gate.Decision>();
  });
});
