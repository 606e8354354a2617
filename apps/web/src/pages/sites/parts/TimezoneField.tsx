import type { FieldBinding } from '../../../forms/useForm.ts';
import { SelectField } from './fields.tsx';
import { zonesIncluding } from './timezones.ts';

/** The site's time zone, from every zone the browser knows, grouped by region. */
export function TimezoneField({ bind }: { bind: FieldBinding }) {
  return (
    <SelectField label="Time zone" bind={bind} hint="Report days start at midnight in this zone.">
      {zonesIncluding(bind.value).map(([region, zones]) => (
        <optgroup key={region} label={region}>
          {zones.map((zone) => (
            <option key={zone} value={zone}>
              {zone.replace(/_/g, ' ')}
            </option>
          ))}
        </optgroup>
      ))}
    </SelectField>
  );
}
