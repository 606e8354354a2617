import type { AlertKind, AlertWindow } from '@us/shared';

/** The columns of an `alerts` row every reader of a rule needs (the job's and the routes' rows add theirs). */
export interface RuleColumns {
  id: string;
  kind: AlertKind;
  threshold_percent: number | null;
  goal: string | null;
  time_window: AlertWindow;
  webhook_url: string | null;
}
