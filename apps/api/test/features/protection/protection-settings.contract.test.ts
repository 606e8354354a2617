import * as gate from '@us/protection';
import * as shared from '@us/shared';
import { describe, expect, expectTypeOf, it } from 'vitest';

/** The service validates bot settings with zod (`@us/shared`); the gate reads them as plain types (`@us/protection`). */
describe('bot settings: the schema and the gate agree', () => {
  it('use the one list of modes, actions, categories and client kinds', () => {
    expect(gate.BOT_MODES).toBe(shared.BOT_MODES);
    expect(gate.BOT_ACTIONS).toBe(shared.BOT_ACTIONS);
    expect(gate.BOT_CATEGORIES).toBe(shared.BOT_CATEGORIES);
    expect(gate.CLIENT_KINDS).toBe(shared.CLIENT_KINDS);
    expect(shared.BotSettings.shape.mode.options).toEqual([...shared.BOT_MODES]);
    expect(shared.BotSettings.shape.bots.options).toEqual([...shared.BOT_ACTIONS]);
  });

  it('every valid settings object is one the gate takes', () => {
    expectTypeOf<shared.BotSettings>().toExtend<gate.ProtectionSettings>();
    expectTypeOf<shared.Decision>().toExtend<gate.Decision>();
  });
});
