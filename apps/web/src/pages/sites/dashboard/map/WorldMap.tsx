import type { TopTable } from '@us/shared';
import { geoEqualEarth, geoPath } from 'd3-geo';
import { useMemo } from 'react';
import { formatCount } from '../../../../lib/format.ts';
import { valueLabel } from '../topValues.ts';
import { countryShapes } from './shapes.ts';

const WIDTH = 800;
const HEIGHT = 400;
const COUNT_WORDS: Record<string, string> = { sessions: 'sessions', pageviews: 'pageviews', requests: 'requests' };

/**
 * The countries table as a world map: the darker a country, the more of the count; each coloured country
 * names its figure on hover and is a button that filters the dashboard (click, or Tab then Enter). The
 * map's accessible name carries the top five.
 */
export function WorldMap({
  table,
  onFilter,
}: {
  table: TopTable;
  onFilter: ((dimension: string, value: string | null) => void) | undefined;
}) {
  const paths = useMemo(() => {
    const projection = geoEqualEarth().fitSize([WIDTH, HEIGHT], {
      type: 'FeatureCollection',
      features: countryShapes().map((c) => c.shape),
    });
    const draw = geoPath(projection);
    return countryShapes().map((c) => ({ ...c, d: draw(c.shape) ?? '' }));
  }, []);
  const counts = new Map(table.rows.map((r) => [r.value, r.count]));
  const most = Math.max(1, ...table.rows.map((r) => r.count));
  const shade = (count: number) => 0.2 + 0.8 * (count / most);
  const word = COUNT_WORDS[table.count] ?? table.count;
  const top = table.rows
    .filter((r) => r.value)
    .slice(0, 5)
    .map((r) => `${valueLabel('country', r.value)} ${formatCount(r.count)}`);
  const name = `${word.charAt(0).toUpperCase()}${word.slice(1)} by country on a world map${top.length ? `: ${top.join(', ')}` : ': none in this range'}`;
  return (
    <figure className="dash-map">
      {/* biome-ignore lint/a11y/useSemanticElements: an SVG drawing has no fieldset; the group names the map */}
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT}`} role="group" aria-label={name}>
        {paths.map((c, i) => {
          const count = c.code ? (counts.get(c.code) ?? 0) : 0;
          if (count === 0) return <path key={c.code ?? `x${i}`} d={c.d} className="dash-map-country" />;
          const label = `${valueLabel('country', c.code)}: ${formatCount(count)} ${word}`;
          if (!onFilter) {
            return (
              <path key={c.code} d={c.d} className="dash-map-country dash-map-counted" style={{ fillOpacity: shade(count) }}>
                <title>{label}</title>
              </path>
            );
          }
          const filter = () => onFilter('country', c.code);
          return (
            // biome-ignore lint/a11y/useSemanticElements: SVG has no button element; the country's shape is the control
            <path
              key={c.code}
              d={c.d}
              className="dash-map-country dash-map-counted dash-map-clickable"
              style={{ fillOpacity: shade(count) }}
              data-country={c.code}
              role="button"
              tabIndex={0}
              aria-label={`Filter by ${label}`}
              onClick={filter}
              onKeyDown={(e) => {
                if (e.key === 'Enter' || e.key === ' ') {
                  e.preventDefault();
                  filter();
                }
              }}
            >
              <title>{label}</title>
            </path>
          );
        })}
      </svg>
      <figcaption className="dash-attribution">
        Darker: more {word}. Map: <a href="https://www.naturalearthdata.com/">Natural Earth</a> (public domain)
      </figcaption>
    </figure>
  );
}
