import { describe, expect, it } from 'vitest';
import {
  choicesToParams,
  comparedPeriodFields,
  DEFAULT_CHOICES,
  parseChoices,
  whereParams,
} from '../src/pages/sites/dashboard/choices.ts';
import { filterText } from '../src/pages/sites/dashboard/FilterChips.tsx';
import { toCsv } from '../src/pages/sites/dashboard/full/counts.ts';
import { parseTableChoices, tableChoicesToParams } from '../src/pages/sites/dashboard/full/tableChoices.ts';

describe('dashboard filters in the address', () => {
  it('reads where.<dimension> parameters in order, the first of each, at most six, ignoring odd names', () => {
    const c = parseChoices(
      '?where.country=DE&where.source=(none)&where.country=US&where.Bad=x&where.=y&where.page=&wherex=1&lane=crawlers',
    );
    expect(c.filters).toEqual({ country: 'DE', source: '(none)' });
    expect(Object.keys(c.filters)).toEqual(['country', 'source']);
    expect(c.lane).toBe('crawlers');
    const many = parseChoices(`?${Array.from({ length: 8 }, (_, i) => `where.d${'x'.repeat(i)}=${i}`).join('&')}`);
    expect(Object.keys(many.filters)).toHaveLength(6);
    expect(parseChoices('').filters).toEqual({});
  });

  it('reads a custom property filter (where.prop:<key>, the key as sent), not one whose key cannot be', () => {
    const c = parseChoices('?where.prop:Team%20size=small&where.prop:plan=pro&where.prop:a%2Fb=x&where.prop:=y');
    expect(c.filters).toEqual({ 'prop:Team size': 'small', 'prop:plan': 'pro' });
    expect(choicesToParams(c).get('where.prop:plan')).toBe('pro');
  });

  it('writes them back beside the other choices and keeps unrelated parameters', () => {
    const q = choicesToParams(
      { ...DEFAULT_CHOICES, range: '30d', filters: { country: 'DE', page: '/a b' } },
      new URLSearchParams('?where.device=mobile&keep=1'),
    );
    expect(q.toString()).toBe('keep=1&range=30d&where.country=DE&where.page=%2Fa+b');
    expect(parseChoices(`?${q}`).filters).toEqual({ country: 'DE', page: '/a b' });
  });

  it('sends them as the API names them, and reads them as people do', () => {
    expect(whereParams({ country: 'DE', source: '(none)' })).toEqual({ 'where.country': 'DE', 'where.source': '(none)' });
    expect(filterText('source', '(none)', { source: 'Source' })).toBe('Source is Direct / none');
    expect(filterText('device', 'mobile', { device: 'Device' })).toBe('Device is Mobile');
    expect(filterText('page_type', 'article', undefined)).toBe('page type is article');
  });
});

describe('full tables: choices and CSV', () => {
  it('reads q, sort and page, falling back to the defaults, and writes them back beside the dashboard’s', () => {
    expect(parseTableChoices('?q=blog&sort=visitors&page=3')).toEqual({ q: 'blog', sort: 'visitors', page: 3 });
    expect(parseTableChoices('?sort=DROP%20TABLE&page=0')).toEqual({ q: '', sort: null, page: 1 });
    expect(parseTableChoices('?page=2.5').page).toBe(1);
    const q = tableChoicesToParams({ q: 'a b', sort: null, page: 2 }, new URLSearchParams('range=30d&where.country=DE&page=9'));
    expect(q.toString()).toBe('range=30d&where.country=DE&q=a+b&page=2');
  });

  it('writes the rows shown as CSV: quoted where needed, formulas defused, figures as numbers', () => {
    const csv = toCsv(
      'Page',
      ['pageviews', 'time_on_page'],
      [
        { value: '/a,b', counts: { pageviews: 3, time_on_page: 12.5 } },
        { value: '=HYPERLINK("x")', counts: { pageviews: 1 } },
      ],
    );
    expect(csv).toBe('Page,Pageviews,Time on page\r\n"/a,b",3,12.5\r\n"\'=HYPERLINK(""x"")",1,0\r\n');
  });
});

describe('the two periods compared', () => {
  it('carry the chosen comparison range, so "What changed?" compares what the headline measures compare', () => {
    const c = parseChoices(
      '?range=custom&from=2026-11-01&to=2026-11-07&compare=1&compareFrom=2026-10-01&compareTo=2026-10-07&where.country=DE',
    );
    expect(comparedPeriodFields(c)).toMatchObject({
      from: '2026-11-01',
      to: '2026-11-07',
      compareFrom: '2026-10-01',
      compareTo: '2026-10-07',
      'where.country': 'DE',
    });
    expect(comparedPeriodFields({ ...c, compare: false })).not.toHaveProperty('compareFrom');
  });
});
