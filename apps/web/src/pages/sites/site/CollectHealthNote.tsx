import { Notice } from '../../../components/Notice.tsx';
import { formatNumberEn } from '../../../lib/format.ts';
import type { InstallStatus } from '../types.ts';

const reports = (value: number) => `${formatNumberEn(value)} ${value === 1 ? 'report' : 'reports'}`;

/**
 * What the collector did not store lately, so an owner sees a flood or bad reports instead of
 * wondering why figures are low. Shown only when something was dropped or set aside.
 */
export function CollectHealthNote({ collect }: { collect: InstallStatus['collect'] }) {
  const { droppedLast7Days, droppedToday, droppedByReason, setAsideLast7Days } = collect;
  if (!droppedLast7Days && !setAsideLast7Days) return null;
  return (
    <Notice tone="info">
      <span id="collect-health">
        {droppedLast7Days > 0 && (
          <>
            {reports(droppedLast7Days)} dropped in the last 7 days ({formatNumberEn(droppedToday)} today): they came faster than
            the collector accepts
            {droppedByReason.address > 0 && (
              <> ({formatNumberEn(droppedByReason.address)} from single addresses sending too many)</>
            )}
            {droppedByReason.site > 0 && <> ({formatNumberEn(droppedByReason.site)} past the site's budget per minute)</>}. Such
            bursts are usually automated traffic.{' '}
          </>
        )}
        {setAsideLast7Days > 0 && (
          <>
            {formatNumberEn(setAsideLast7Days)} {setAsideLast7Days === 1 ? 'report' : 'reports'} could not be stored and{' '}
            {setAsideLast7Days === 1 ? 'was' : 'were'} set aside for inspection.
          </>
        )}
      </span>
    </Notice>
  );
}
