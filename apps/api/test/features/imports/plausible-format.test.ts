// Plausible's CSV export read into imported daily figures: each file of the export's set mapped to our
// dimensions, headers checked by name, bad records named by line. Samples: fixtures/plausible (their
// shape from Plausible's own importer, cited there).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { ImportedRow, NumberedRecord } from '../../../src/features/imports/formats/format.ts';
import { plausibleFormat, plausibleTableOf } from '../../../src/features/imports/formats/plausible.ts';

const fixture = (name: string) => readFileSync(new URL(`./fixtures/plausible/${name}`, import.meta.url), 'utf8');

/** A small CSV's records as the job hands them out (no quoting in the samples). */
function recordsOf(text: string): { header: string[]; records: NumberedRecord[] } {
  const [head, ...lines] = text.trim().split('\n');
  const header = (head as string).split(',');
  return {
    header,
    records: lines.map((l, i) => ({ line: i + 2, record: Object.fromEntries(l.split(',').map((v, j) => [header[j], v])) })),
  };
}

async function read(name: string, text = fixture(name)) {
  const { header, records } = recordsOf(text);
  const rows: ImportedRow[] = [];
  const bad: [number, string][] = [];
  expect(plausibleFormat.check(name, header)).toBeNull();
  await plausibleFormat.read(
    name,
    (async function* () {
      yield* records;
    })(),
    {
      rows: async (r) => {
        rows.push(...r);
      },
      staged: async () => {
        throw new Error('Plausible figures are daily already');
      },
      bad: (line, reason) => bad.push([line, reason]),
    },
  );
  const row = (day: string, metricSet: string, dimension: string, value: string) =>
    rows.filter((r) => r.day === day && r.metricSet === metricSet && r.dimension === dimension && r.value === value);
  return { rows, bad, row };
}

describe('Plausible CSV export', () => {
  it('knows the export set by file name, with or without imported_', () => {
    expect(plausibleTableOf('imported_pages_20240101_20240630.csv')).toBe('imported_pages');
    expect(plausibleTableOf('operating_systems_20240101_20240630.csv')).toBe('imported_operating_systems');
    expect(plausibleTableOf('imported_custom_events_20240101_20240630.csv')).toBe('imported_custom_events');
    expect(plausibleTableOf('imported_cities_20240101_20240630.csv')).toBeNull();
    expect(plausibleTableOf('pages.csv')).toBeNull();
  });

  it('drops control characters from a value and bounds its length (a NUL would fail the whole batch in PostgreSQL)', async () => {
    const long = `/${'a'.repeat(5000)}`;
    const { rows } = await read(
      'imported_pages_20240101_20240102.csv',
      `date,page,visitors,pageviews\n2024-01-01,/pri\u0000cing,2,3\n2024-01-01,${long},1,1\n`,
    );
    const pages = rows.filter((r) => r.dimension === 'page').map((r) => r.value);
    expect(pages).toContain('/pricing');
    expect(pages.every((v) => v.length <= 2048 && !v.includes('\u0000'))).toBe(true);
  });

  it('refuses a file of another kind or with missing columns, naming what it expects', () => {
    expect(plausibleFormat.check('export.csv', ['date'])).toMatch(/imported_pages_20240101_20240630\.csv/);
    expect(plausibleFormat.check('imported_pages_20240101_20240102.csv', ['date', 'hostname', 'page', 'visitors'])).toBe(
      "imported_pages_20240101_20240102.csv lacks the column pageviews: imported_pages files of Plausible's export have date, page, visitors, pageviews",
    );
  });

  it('visitors: the day totals and the summary measures', async () => {
    const { row } = await read('imported_visitors_20240101_20240102.csv');
    expect(row('2024-01-01', 'pageviews', '', '')).toEqual([expect.objectContaining({ count: 30, visitors: 10 })]);
    expect(row('2024-01-01', 'sessions', '', '')).toEqual([expect.objectContaining({ count: 12, visitors: 10 })]);
    expect(row('2024-01-01', 'summary', 'single_page', '')).toEqual([expect.objectContaining({ count: 4 })]);
    expect(row('2024-01-01', 'summary', 'visible_ms', '')).toEqual([expect.objectContaining({ count: 600_000 })]);
  });

  it('sources: sessions by source, medium and campaign; direct is no source; search engines count as from search', async () => {
    const { row } = await read('imported_sources_20240101_20240102.csv');
    expect(row('2024-01-01', 'sessions', 'source', 'Google')).toEqual([expect.objectContaining({ count: 7, visitors: 6 })]);
    expect(row('2024-01-01', 'pageviews', 'source', 'Google')).toEqual([expect.objectContaining({ count: 20, visitors: 6 })]);
    expect(row('2024-01-01', 'sessions', 'source', '')).toEqual([expect.objectContaining({ count: 5 })]);
    expect(row('2024-01-02', 'sessions', 'medium', 'email')).toEqual([expect.objectContaining({ count: 6 })]);
    expect(row('2024-01-02', 'sessions', 'campaign', 'spring')).toEqual([expect.objectContaining({ count: 6 })]);
    expect(row('2024-01-01', 'summary', 'from_search', '')).toEqual([expect.objectContaining({ count: 7 })]);
    expect(row('2024-01-02', 'summary', 'from_search', '')).toEqual([]);
  });

  it('pages, entry and exit pages, locations, devices, browsers, systems and events map to our dimensions', async () => {
    expect((await read('imported_pages_20240101_20240102.csv')).row('2024-01-01', 'pageviews', 'page', '/pricing')).toEqual([
      expect.objectContaining({ count: 10, visitors: 3 }),
    ]);
    expect((await read('imported_entry_pages_20240101_20240102.csv')).row('2024-01-01', 'sessions', 'page', '/')).toEqual([
      expect.objectContaining({ count: 10, visitors: 9 }),
    ]);
    expect(
      (await read('imported_exit_pages_20240101_20240102.csv')).row('2024-01-01', 'sessions', 'exit_page', '/pricing'),
    ).toEqual([expect.objectContaining({ count: 7, visitors: 6 })]);
    // Two regions of one country: two rows the job sums.
    expect(
      (await read('imported_locations_20240101_20240102.csv')).row('2024-01-01', 'sessions', 'country', 'DE').map((r) => r.count),
    ).toEqual([7, 1]);
    expect((await read('imported_devices_20240101_20240102.csv')).row('2024-01-01', 'sessions', 'device', 'mobile')).toEqual([
      expect.objectContaining({ count: 4, visitors: 3 }),
    ]);
    const browsers = await read('imported_browsers_20240101_20240102.csv');
    expect(browsers.row('2024-01-01', 'sessions', 'browser', 'Edge')).toEqual([expect.objectContaining({ count: 2 })]);
    expect(browsers.row('2024-01-01', 'sessions', 'browser_version', 'Chrome 120')).toEqual([
      expect.objectContaining({ count: 6 }),
    ]);
    const systems = await read('imported_operating_systems_20240101_20240102.csv');
    expect(systems.row('2024-01-01', 'sessions', 'os', 'macOS')).toEqual([expect.objectContaining({ count: 5 })]);
    expect(systems.row('2024-01-01', 'sessions', 'os', 'Linux')).toEqual([expect.objectContaining({ count: 7 })]);
    expect(systems.row('2024-01-01', 'sessions', 'os_version', '')).toEqual([expect.objectContaining({ count: 7 })]);
    const events = await read('imported_custom_events_20240101_20240102.csv');
    expect(events.row('2024-01-01', 'events', 'event', 'Signup')).toEqual([expect.objectContaining({ count: 3, visitors: 2 })]);
    expect(events.row('2024-01-02', 'events', 'page', '/pricing')).toEqual([expect.objectContaining({ count: 1, visitors: 1 })]);
  });

  it('a bad record costs only itself, named by its line', async () => {
    const text = [
      'date,hostname,page,visits,visitors,pageviews,scroll_depth,pageleave_visitors',
      '2024-01-01,example.com,/,8,7,20,,0',
      '2024-13-01,example.com,/,8,7,20,,0',
      '2024-01-02,example.com,/,8,seven,20,,0',
      '2024-01-02,example.com,/a,1,1,2,,0',
    ].join('\n');
    const { rows, bad } = await read('imported_pages_20240101_20240102.csv', text);
    expect(rows.map((r) => r.value)).toEqual(['/', '/a']);
    expect(bad).toEqual([
      [3, 'date "2024-13-01" is not a day from 1970-01-01 to 2199-12-31 (YYYY-MM-DD)'],
      [4, 'visitors "seven" is not a whole number'],
    ]);
  });
});
