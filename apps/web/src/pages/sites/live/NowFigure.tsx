import { formatCount } from '../../../lib/format.ts';

/** "● 3 visitors now": people with a pageview in the last few minutes, announced politely as it changes. */
export function NowFigure({ visitors, minutes }: { visitors: number | undefined; minutes: number }) {
  const text = visitors === undefined ? '…' : `${formatCount(visitors)} ${visitors === 1 ? 'visitor' : 'visitors'} now`;
  return (
    <p
      className="live-now"
      title={`People with a pageview in the last ${minutes} minutes`}
      aria-live="polite"
      data-testid="visitors-now"
    >
      <span className={`live-dot${visitors ? ' live-dot-on' : ''}`} aria-hidden="true" />
      {text}
    </p>
  );
}
