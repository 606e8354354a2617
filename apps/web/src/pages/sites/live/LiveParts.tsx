import { NOW } from '@us/shared';
import { Notice } from '../../../components/Notice.tsx';
import { toProblem } from '../../../problem.ts';
import { LastPageviews } from './LastPageviews.tsx';
import { NowFigure } from './NowFigure.tsx';
import { useSiteNow } from './useLive.ts';

/**
 * The dashboard's live parts: the visitors-now figure above the figures, the last pageviews below them.
 * Both read the same polled query (React Query shares it), so a tab asks once every few seconds.
 */
export function LiveParts({ siteId, part }: { siteId: string; part: 'figure' | 'list' }) {
  const now = useSiteNow(siteId);
  if (now.error) {
    // Shown once, with the list; the figure stays quiet.
    return part === 'list' ? <Notice tone="error">Live figures: {toProblem(now.error).title}</Notice> : null;
  }
  if (part === 'figure') return <NowFigure visitors={now.data?.visitors} minutes={NOW.minutes} />;
  return <LastPageviews recent={now.data?.recent} minutes={NOW.recentMinutes} />;
}
