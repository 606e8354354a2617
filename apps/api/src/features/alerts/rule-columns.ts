import type { AlertKind, AlertWindow } from '@us/shared';
import type { Deps } from '../../core/deps.ts';

// The rows alert rules are read as: what every reader needs, and the job's rule with its site.

/** The columns of an `alerts` row every reader of a rule needs (the job's and the routes' rows add theirs). */
export interface RuleColumns {
  id: string;
  kind: AlertKind;
  threshold_percent: number | null;
  goal: string | null;
  time_window: AlertWindow;
  webhook_url: string | null;
}

export type AlertDeps = Pick<Deps, 'env' | 'hot' | 'statsOrm' | 'mailer' | 'urls' | 'ciphers' | 'sleep'>;

export interface RuleRow extends RuleColumns {
  webhook_secret: string | null;
  /** As the driver gives it (text of a timestamptz). */
  created_at: Date | string;
  last_period: string | null;
  site_id: string;
  name: string;
  timezone: string;
  workspace_id: string;
  settings: Record<string, unknown> | null;
}

/** What a fired rule's webhook is to say, sent after every e-mail of the run. */
export interface PendingHook {
  deliveryId: string;
  url: string;
  sealedSecret: string;
  body: string;
}

export const RULE_COLUMNS = `a.id, a.kind, a.threshold_percent, a.goal, a.time_window, a.webhook_url, a.webhook_secret,
  a.created_at, a.last_period, s.id as site_id, s.name, s.timezone, s.workspace_id, s.settings`;
