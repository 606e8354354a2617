import { LANE_CHOICES, type LaneKey } from './choices.ts';

/** People, Crawlers or Internal: which traffic the page is about. */
export function LaneSwitcher({ value, onChange }: { value: LaneKey; onChange: (lane: LaneKey) => void }) {
  return (
    <fieldset className="dash-segmented" aria-label="Traffic">
      <legend className="site-visually-hidden">Traffic</legend>
      {LANE_CHOICES.map((l) => (
        <button
          key={l.key}
          type="button"
          className="dash-segment"
          aria-pressed={value === l.key}
          onClick={() => value !== l.key && onChange(l.key)}
        >
          {l.label}
        </button>
      ))}
    </fieldset>
  );
}
