import { describe, expect, it } from 'vitest';
import { UmamiReader, umamiFormat } from '../../../../src/features/imports/formats/umami.ts';
import { csvOf, fixture, RecordingSink, readWith } from './format-harness.ts';

// Fixture: Umami's data export of website events in its own columns (fixtures/README.md says where from).
const EXPORT = fixture('umami/website_event.csv');

describe('Umami data export', () => {
  it('counts pageviews by day and by each dimension, values stored as intake stores them', async () => {
    const { refusal, sink } = await readWith(umamiFormat, 'website_event.csv', EXPORT);
    expect(refusal).toBeNull();
    expect(sink.of('2026-03-01', 'pageviews')).toEqual({
      '=': [3, 2],
      'page=/pricing': [1, 1],
      // The fragment Umami keeps in url_path is no part of a stored path.
      'page=/docs': [1, 1],
      'page=/': [1, 1],
      // utm_source names the source; a referrer's family does ("google.com" is Google), else its host.
      'source=newsletter': [1, 1],
      'source=shop.example': [1, 1],
      'source=Google': [1, 1],
      'channel=Email': [1, 1],
      'channel=Referral': [1, 1],
      'channel=Organic Search': [1, 1],
      'referrer=': [1, 1],
      'referrer=shop.example': [1, 1],
      'referrer=google.com': [1, 1],
      'medium=email': [1, 1],
      'medium=': [2, 2],
      'campaign=spring': [1, 1],
      'campaign=': [2, 2],
      'country=DE': [2, 1],
      'country=US': [1, 1],
      // Umami's "laptop" is a desktop with a small screen; Chrome on iOS (crios) is Chrome.
      'device=desktop': [2, 1],
      'device=mobile': [1, 1],
      'browser=Chrome': [3, 2],
      'os=macOS': [2, 1],
      'os=iOS': [1, 1],
      'language=en-US': [3, 2],
    });
    // The decoded path is stored percent-encoded, as a page URL's path is.
    expect(sink.of('2026-03-02', 'pageviews', 'page')).toEqual({ 'page=/blog/%C3%BCber-uns': [1, 1], 'page=/pricing': [1, 1] });
    expect(sink.of('2026-03-02', 'pageviews', 'source')).toEqual({ 'source=shop.example': [1, 1], 'source=Facebook': [1, 1] });
    expect(sink.of('2026-03-02', 'pageviews', 'browser')).toEqual({ 'browser=Chrome': [1, 1], 'browser=Firefox': [1, 1] });
    expect(sink.of('2026-03-02', 'pageviews', 'os')).toEqual({ 'os=iOS': [1, 1], 'os=Windows': [1, 1] });
  });

  it('counts each visit once, on the day and with the values of its first pageview, and at its last page', async () => {
    const { sink } = await readWith(umamiFormat, 'website_event.csv', EXPORT);
    // The visit that began at 23:59:30 and went on past midnight counts on the 1st only.
    expect(sink.of('2026-03-01', 'sessions', '')).toEqual({ '=': [2, 2] });
    expect(sink.of('2026-03-01', 'sessions', 'page')).toEqual({ 'page=/pricing': [1, 1], 'page=/': [1, 1] });
    expect(sink.of('2026-03-01', 'sessions', 'exit_page')).toEqual({
      'exit_page=/docs': [1, 1],
      'exit_page=/blog/%C3%BCber-uns': [1, 1],
    });
    expect(sink.of('2026-03-01', 'sessions', 'channel')).toEqual({ 'channel=Email': [1, 1], 'channel=Organic Search': [1, 1] });
    expect(sink.of('2026-03-02', 'sessions', '')).toEqual({ '=': [1, 1] });
    // fbclid (from url_query) and Facebook's link shim: organic social, as intake would say.
    expect(sink.of('2026-03-02', 'sessions', 'channel')).toEqual({ 'channel=Organic Social': [1, 1] });
  });

  it('counts custom events by name; performance records are no visit', async () => {
    const { sink } = await readWith(umamiFormat, 'website_event.csv', EXPORT);
    expect(sink.of('2026-03-01', 'events')).toEqual({
      '=': [1, 1],
      'event=signup': [1, 1],
      'kind=event': [1, 1],
      'page=/docs': [1, 1],
      'country=DE': [1, 1],
      'device=desktop': [1, 1],
      'browser=Chrome': [1, 1],
      'os=macOS': [1, 1],
    });
    expect(sink.of('2026-03-02', 'events')).toEqual({});
    expect(sink.of('2026-03-02', 'pageviews', '')).toEqual({ '=': [2, 2] });
  });

  it('names each bad row with its line and keeps the others', async () => {
    const { sink } = await readWith(umamiFormat, 'website_event.csv', EXPORT);
    expect(sink.badLines).toEqual([
      [7, 'created_at "yesterday" is not a time (2024-05-01 12:34:56)'],
      [10, 'event_name is empty: a custom event (event_type 2) needs its name'],
    ]);
  });

  it('a session or visit id that is no id is a bad row (a NUL in one failed the whole import at PostgreSQL)', async () => {
    const [header, first] = EXPORT.split('\n') as [string, string];
    const cells = first.split(',');
    const withNul = [...cells];
    withNul[1] = 'a1a1\u0000a1a1';
    const longVisit = [...cells];
    longVisit[2] = 'v'.repeat(101);
    const { sink } = await readWith(
      umamiFormat,
      'website_event.csv',
      [header, withNul.join(','), longVisit.join(','), first, ''].join('\n'),
    );
    expect(sink.badLines).toEqual([
      [2, 'session_id is no id (at most 100 printable characters)'],
      [3, 'visit_id is no id (at most 100 printable characters)'],
    ]);
  });

  it('takes a visit where it began and ended even when the file is not in time order', async () => {
    const csv = [
      'created_at,session_id,visit_id,event_type,url_path',
      '2026-03-05 10:05:00,s1,v1,1,/b',
      '2026-03-05 10:00:00,s1,v1,1,/a',
      '2026-03-05 10:02:00,s1,v1,1,/c',
    ].join('\n');
    const { sink } = await readWith(umamiFormat, 'export.csv', csv);
    expect(sink.of('2026-03-05', 'sessions')).toEqual({ '=': [1, 1], 'page=/a': [1, 1], 'exit_page=/b': [1, 1] });
  });

  it('holds a bounded number of visits however many the file has: one visit each counted once, in time order', async () => {
    const rows = ['created_at,session_id,visit_id,event_type,url_path'];
    for (let i = 0; i < 1_000; i++) {
      const at = `2026-03-05 10:${String(Math.floor(i / 60) % 60).padStart(2, '0')}:${String(i % 60).padStart(2, '0')}`;
      rows.push(`${at},s${i},v${i},1,/a`);
      // The visit's second pageview comes a little later in the file, after its first was counted.
      if (i >= 15) rows.push(`${at},s${i - 15},v${i - 15},1,/b`);
    }
    const sink = new RecordingSink();
    const reader = new UmamiReader(sink, { open: 10, closed: 20 });
    let mostHeld = 0;
    for (const record of csvOf(rows.join('\n')).records) {
      await reader.add(record);
      mostHeld = Math.max(mostHeld, reader.visitsHeld);
    }
    await reader.end();
    expect(mostHeld).toBeLessThanOrEqual(31);
    expect(sink.of('2026-03-05', 'sessions', '')).toEqual({ '=': [1_000, 1_000] });
    expect(sink.of('2026-03-05', 'pageviews', '')).toEqual({ '=': [1_985, 1_000] });
  });

  it('without visit ids (Umami before 2.11), a session day is one visit; zones in created_at are read', async () => {
    const csv = [
      'created_at,session_id,event_type,url_path',
      '2026-03-05 10:00:00,s1,1,/a',
      '2026-03-05T18:00:00.250Z,s1,1,/b',
      // 23:30 at UTC-2 is 01:30 UTC on the 6th: another day, another visit.
      '2026-03-05T23:30:00-02:00,s1,1,/c',
      '2026-03-06 08:00:00.123456+00,s2,1,/a',
    ].join('\n');
    const { sink } = await readWith(umamiFormat, 'export.csv', csv);
    expect(sink.of('2026-03-05', 'sessions')).toEqual({ '=': [1, 1], 'page=/a': [1, 1], 'exit_page=/b': [1, 1] });
    expect(sink.of('2026-03-06', 'sessions', '')).toEqual({ '=': [2, 2] });
    expect(sink.of('2026-03-06', 'pageviews', 'page')).toEqual({ 'page=/c': [1, 1], 'page=/a': [1, 1] });
    // No referrer, country or browser columns: no such rows rather than rows of empty values.
    expect(Object.keys(sink.of('2026-03-06', 'pageviews'))).toEqual(['=', 'page=/c', 'page=/a']);
  });

  it('bounds and cleans values like intake: control characters dropped, lengths cut to their column', async () => {
    const long = `/${'a'.repeat(3000)}`;
    const csv = [
      'created_at,session_id,visit_id,event_type,url_path,event_name,country',
      `2026-03-05 10:00:00,s1,v1,1,${long},,de`,
      `2026-03-05 10:01:00,s1,v1,2,/a,"sign\u0007up${'x'.repeat(200)}",Germany`,
    ].join('\n');
    const { sink } = await readWith(umamiFormat, 'export.csv', csv);
    expect(sink.of('2026-03-05', 'pageviews', 'page')).toEqual({ [`page=${long.slice(0, 2048)}`]: [1, 1] });
    // A lower-case code is stored upper-case; what is no two-letter code is no country.
    expect(sink.of('2026-03-05', 'pageviews', 'country')).toEqual({ 'country=DE': [1, 1] });
    expect(sink.of('2026-03-05', 'events', 'event')).toEqual({ [`event=signup${'x'.repeat(122)}`]: [1, 1] });
    expect(sink.of('2026-03-05', 'events', 'country')).toEqual({ 'country=': [1, 1] });
  });

  it('refuses a file without the columns it needs, naming them', () => {
    expect(umamiFormat.check('export.csv', ['created_at', 'url_path', 'visit_id'])).toBe(
      "Umami's export of website events has the columns created_at, session_id, event_type, url_path: this file lacks session_id, event_type.",
    );
    expect(umamiFormat.check('pages.csv', ['x', 'y'])).toMatch(/Umami's dashboard download \(x, y: totals without days\)/);
    expect(umamiFormat.check('export.csv', ['created_at', 'session_id', 'event_type', 'url_path'])).toBeNull();
  });
});
