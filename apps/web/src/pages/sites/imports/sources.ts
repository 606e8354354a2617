import type { ImportSourceName } from '@us/shared';

/** Each source's name and what to export there (docs/product/imports.md says more). */
export const SOURCES: { value: ImportSourceName; label: string; files: string }[] = [
  {
    value: 'plausible',
    label: 'Plausible CSV export',
    files:
      'Site settings → Imports & Exports → Export: upload the imported_visitors_…csv, imported_pages_…csv and the other CSV files of the zip.',
  },
  {
    value: 'umami',
    label: 'Umami data export',
    files:
      'Settings → Data → Export: the one CSV of website events (unzipped); the dashboard’s pages.csv, referrers.csv… are refused.',
  },
  {
    value: 'ga4',
    label: 'Google Analytics 4 report downloads',
    files:
      'Reports → a report, with Date added as a secondary dimension → Share this report → Download CSV: one file per report, plus one with Date only for the day totals.',
  },
];

export const sourceLabel = (value: string) => SOURCES.find((s) => s.value === value)?.label ?? value;
