// Whether a rule fires for a period's figures. Pure: the job (alerts-job.ts) gives the figures.
import { ALERT_LIMITS, type AlertKind } from '@us/shared';
import type { AlertFigures } from './figures.ts';

/** The change of `current` against `baseline`, in whole percent; null without a baseline. */
export const changePercent = (f: AlertFigures): number | null =>
  f.baseline === null || f.baseline === 0 ? null : Math.round(((f.current - f.baseline) / f.baseline) * 100);

/**
 * Spike: at least `threshold`% above the usual figure; drop and goal drop: at least `threshold`% below it.
 * Only against a baseline of ALERT_LIMITS.minBaseline or more, so a small site is not told that 1 visitor
 * became 3. First pageview: any pageview.
 */
export function fires(kind: AlertKind, threshold: number | null, f: AlertFigures): boolean {
  if (kind === 'first_pageview') return f.current > 0;
  if (f.baseline === null || f.baseline < ALERT_LIMITS.minBaseline || threshold === null) return false;
  if (kind === 'traffic_spike') return f.current >= f.baseline * (1 + threshold / 100);
  return f.current <= f.baseline * (1 - threshold / 100);
}
