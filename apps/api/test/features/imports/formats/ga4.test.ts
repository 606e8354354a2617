import { describe, expect, it } from 'vitest';
import { countryCode } from '../../../../src/features/imports/formats/countries.ts';
import { ga4Format, parseCount } from '../../../../src/features/imports/formats/ga4.ts';
import { each, fixture, RecordingSink, readWith } from './format-harness.ts';

// Fixtures: GA4's Download → CSV of its standard reports with Date added (fixtures/README.md says where from).
const read = (name: string) => readWith(ga4Format, name, fixture(`ga4/${name}`));

describe('Google Analytics 4 report downloads', () => {
  it('Pages and screens: pageviews by page (Views, Active users as visitors), no day totals', async () => {
    const { refusal, sink } = await read('pages.csv');
    expect(refusal).toBeNull();
    expect(sink.of('2026-03-01', 'pageviews')).toEqual({ 'page=/': [120, 80], 'page=/pricing': [1204, 700] });
    // GA4's decoded path is stored percent-encoded, as a page URL's path is.
    expect(sink.of('2026-03-02', 'pageviews')).toEqual({ 'page=/blog/%C3%BCber-uns': [40, 31], 'page=/pricing': [64, 50] });
  });

  it('names each bad row with its line and keeps the others', async () => {
    const { sink } = await read('pages.csv');
    expect(sink.badLines).toEqual([
      [5, 'Date "2026030x" is not a day (YYYYMMDD)'],
      [6, 'Views "12.5" is not a whole number'],
    ]);
  });

  it('Traffic acquisition: sessions by channel; GA4 groups we do not have are Other; the Grand total row is left out', async () => {
    const { sink } = await read('traffic-acquisition.csv');
    expect(sink.of('2026-03-01', 'sessions')).toEqual({
      'channel=Organic Search': [600, 0],
      'channel=Direct': [300, 0],
      'channel=Other': [100, 0],
    });
    expect(sink.badLines).toEqual([]);
  });

  it('Session source / medium: sources named as intake names them, GA4-made mediums are none', async () => {
    const { sink } = await read('source-medium.csv');
    expect(sink.of('2026-03-01', 'sessions')).toEqual({
      'source=Google': [500, 450],
      'source=': [300, 280],
      'source=newsletter': [50, 40],
      // "organic" and "(none)" say no utm_medium was sent; the row's users add up per value.
      'medium=': [800, 730],
      'medium=email': [50, 40],
    });
    expect(sink.of('2026-03-02', 'sessions')).toEqual({ 'source=Facebook': [20, 18], 'medium=': [20, 18] });
  });

  it('Tech: browsers by their visitors alone (the table has users, no views), named as intake names them', async () => {
    const { sink } = await read('tech.csv');
    expect(sink.of('2026-03-01', 'pageviews')).toEqual({
      'browser=Chrome': [0, 500],
      'browser=In-app browser': [0, 50],
      'browser=Opera': [0, 4],
      'browser=': [0, 2],
    });
  });

  it('Demographics: English country names to ISO codes; an unknown name costs its row only', async () => {
    const { sink } = await read('demographics.csv');
    expect(sink.of('2026-03-01', 'pageviews')).toEqual({
      'country=US': [0, 300],
      'country=TR': [0, 40],
      'country=CI': [0, 5],
      'country=GB': [0, 80],
      'country=': [0, 7],
    });
    expect(sink.badLines).toEqual([[6, 'Country "Atlantis" is no country name we know']]);
  });

  it('a Date-only table gives the day totals of pageviews and sessions', async () => {
    const { sink } = await read('overview.csv');
    expect(sink.of('2026-03-01', 'pageviews')).toEqual({ '=': [2410, 1020] });
    expect(sink.of('2026-03-01', 'sessions')).toEqual({ '=': [1000, 1020] });
    expect(sink.of('2026-03-02', 'pageviews')).toEqual({ '=': [1980, 870] });
    expect(sink.of('2026-03-02', 'sessions')).toEqual({ '=': [812, 870] });
    // Event count counts GA4's own page_view and session_start events too: it is no day total of events.
    expect(sink.of('2026-03-01', 'events')).toEqual({});
  });

  it('finds its columns when the header carries a byte order mark or spaces', async () => {
    const header = ['\uFEFFDate', ' Views '];
    expect(ga4Format.check('overview.csv', header)).toBeNull();
    const sink = new RecordingSink();
    await ga4Format.read(
      'overview.csv',
      each([{ line: 2, record: { [header[0] as string]: '20260301', [header[1] as string]: '7' } }]),
      sink,
    );
    expect(sink.of('2026-03-01', 'pageviews')).toEqual({ '=': [7, 0] });
  });

  it('Events: custom events by name, GA4 automatic events left out', async () => {
    const csv = ['Event name,Date,Event count,Total users', 'page_view,20260301,900,300', 'signup,20260301,12,11'].join('\n');
    const { sink } = await readWith(ga4Format, 'events.csv', csv);
    expect(sink.of('2026-03-01', 'events')).toEqual({ 'event=signup': [12, 11] });
  });

  it('reads only the first table of a download with several', async () => {
    const csv = ['Date,Views,Total users', '20260301,10,5', 'Date,Sessions', '20260301,7'].join('\n');
    const { sink } = await readWith(ga4Format, 'snapshot.csv', csv);
    expect(sink.of('2026-03-01', 'pageviews')).toEqual({ '=': [10, 5] });
    expect(sink.badLines).toEqual([
      [3, 'Another table begins here: only the first table of a download is read (download each report on its own)'],
    ]);
  });

  it('refuses a file without Date, without a count, or with a dimension it would sum over', () => {
    // The real Pages and screens download, as GA4 writes it without Date added.
    expect(
      ga4Format.check('pages.csv', [
        'Page path and screen class',
        'Views',
        'Active users',
        'Views per active user',
        'Average engagement time per active user',
        'Event count',
        'Key events',
        'Total revenue',
      ]),
    ).toMatch(/need a Date column: add Date as a dimension \(or secondary dimension\)/);
    expect(ga4Format.check('x.csv', ['Date', 'Bounce rate'])).toBe(
      'This Google Analytics 4 file has none of the columns counted: Views, Sessions, Event count, Total users, Active users, Users.',
    );
    expect(ga4Format.check('x.csv', ['Page title', 'Date', 'Views'])).toMatch(
      /^Column "Page title" is a dimension this import does not read: download with Date and one of Page path and screen class, /,
    );
    expect(ga4Format.check('x.csv', ['Country', 'Date', 'Active users', 'Engaged sessions per active user'])).toBeNull();
    expect(ga4Format.commentPrefix).toBe('#');
  });

  it('parses counts with the thousands separators of any locale, and nothing else', () => {
    expect(['1234', '1,234', '1.234', '1\u00a0234', '1 234', "1'234", '12,34,567', ''].map(parseCount)).toEqual([
      1234, 1234, 1234, 1234, 1234, 1234, 1234567, 0,
    ]);
    expect(['1,5', '12%', '1,23', '-3', 'n/a', '1.234.56'].map(parseCount)).toEqual([null, null, null, null, null, null]);
  });

  it('knows GA4 country names in their CLDR long and short forms and older spellings', () => {
    expect(
      ['Hong Kong', 'UK', 'Czech Republic', "Cote d'Ivoire", 'Bosnia & Herzegovina', 'Myanmar (Burma)', 'Turkey'].map(
        countryCode,
      ),
    ).toEqual(['HK', 'GB', 'CZ', 'CI', 'BA', 'MM', 'TR']);
  });
});
