// One week of one source as the providers' clients give it (google-weeks.ts, bing-weeks.ts) and the pull
// stores it (pull.ts).

/** A page or query of a week with its clicks and impressions. */
export interface TopRow {
  key: string;
  clicks: number;
  impressions: number;
}

export const TOP_ROWS = 10;

/** The rows with the most clicks (then impressions), at most TOP_ROWS. */
export function topOf(rows: readonly TopRow[]): TopRow[] {
  return [...rows]
    .sort((a, b) => b.clicks - a.clicks || b.impressions - a.impressions || a.key.localeCompare(b.key))
    .slice(0, TOP_ROWS);
}

export interface WeekFigures {
  week: string;
  clicks: number | null;
  impressions: number | null;
  ctr: number | null;
  position: number | null;
  pages: number | null;
  queries: number | null;
  links: number | null;
  top: { pages: TopRow[]; queries: TopRow[] } | null;
}

/** A week the source reported nothing for: every figure null (not collected), never zero. */
export const NOT_REPORTED: Omit<WeekFigures, 'week'> = {
  clicks: null,
  impressions: null,
  ctr: null,
  position: null,
  pages: null,
  queries: null,
  links: null,
  top: null,
};
