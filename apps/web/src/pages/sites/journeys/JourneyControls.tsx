import { DaysPicker } from '../protection/DaysPicker.tsx';
import { JOURNEY_DAYS, type JourneyChoices, WHO, ZOOMS } from './choices.ts';
import { Segmented } from './Segmented.tsx';

/** Zoom, whose traffic and the period; each lands in the address. */
export function JourneyControls({
  choices,
  onChange,
}: {
  choices: JourneyChoices;
  onChange: (change: Partial<JourneyChoices>) => void;
}) {
  return (
    <div className="dash-controls">
      <Segmented label="Traffic" options={WHO} value={choices.who} onChange={(who) => onChange({ who })} />
      <Segmented label="Zoom" options={ZOOMS} value={choices.zoom} onChange={(zoom) => onChange({ zoom })} />
      <DaysPicker id="journeys-days" days={choices.days} choices={JOURNEY_DAYS} onChange={(days) => onChange({ days })} />
    </div>
  );
}
