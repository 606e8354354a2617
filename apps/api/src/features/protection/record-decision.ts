import type { BotAction, BotSettings, RequestRecord } from '@us/shared';

/** The reason stored for a record that carried no decision (and shown for records stored before decisions were). */
export const NOT_DECIDED = 'not decided: the sender sent no decision';
/** The reason stored for every record of a site whose protection is off (the decision function's own words). */
export const PROTECTION_OFF = 'off: protection is off';

export interface RecordDecision {
  decision: BotAction;
  reason: string;
  risk: number | null;
}

/**
 * What a request record is stored with (spec §6: requests carry their bot-protection decision). A record
 * from an SDK that sends no decision, or from a site whose protection is off, was served: it is stored as
 * `allow` with a reason saying why there is no other. The reason is cut to its column by `cleanRow`.
 */
export function decisionOfRecord(
  mode: BotSettings['mode'],
  rec: Pick<RequestRecord, 'action' | 'reason' | 'risk'>,
): RecordDecision {
  const risk = rec.risk ?? null;
  if (mode === 'off') return { decision: 'allow', reason: PROTECTION_OFF, risk };
  if (!rec.action) return { decision: 'allow', reason: NOT_DECIDED, risk };
  return { decision: rec.action, reason: rec.reason?.trim() || `${rec.action}: the sender gave no reason`, risk };
}
