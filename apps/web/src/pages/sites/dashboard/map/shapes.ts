import type { Feature, Geometry } from 'geojson';
import { numericToAlpha2 } from 'i18n-iso-countries';
import { feature } from 'topojson-client';
import type { GeometryCollection, Topology } from 'topojson-specification';
import world from 'world-atlas/countries-110m.json';

/**
 * The countries of the world as shapes: Natural Earth's 1:110m Admin 0 boundaries (public domain), as
 * TopoJSON from the `world-atlas` package, each keyed by its two-letter code (the API's country values).
 * Loaded with the map only (its own chunk, about 100 KB).
 */
export interface CountryShape {
  code: string | null;
  name: string;
  shape: Feature<Geometry>;
}

let shapes: CountryShape[] | null = null;

export function countryShapes(): CountryShape[] {
  if (shapes) return shapes;
  const topology = world as unknown as Topology<{ countries: GeometryCollection<{ name: string }> }>;
  const collection = feature(topology, topology.objects.countries);
  // Antarctica takes a sixth of the picture and has no visitors to speak of: left out.
  const inhabited = collection.features.filter((f) => f.properties?.name !== 'Antarctica');
  shapes = inhabited.map((f) => ({
    // A few shapes (disputed areas) have no ISO number: drawn, never coloured.
    code: f.id === undefined ? null : (numericToAlpha2(String(f.id)) ?? null),
    name: f.properties?.name ?? '',
    shape: f as Feature<Geometry>,
  }));
  return shapes;
}
