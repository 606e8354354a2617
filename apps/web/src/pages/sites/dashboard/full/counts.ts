import { formatCount, formatDuration, formatHundredths } from '../../../../lib/format.ts';

/** How the counts of a metric set read as column headings. */
const LABELS: Record<string, string> = {
  pageviews: 'Pageviews',
  sessions: 'Sessions',
  visitors: 'Visitors',
  scroll_depth: 'Scroll depth',
  time_on_page: 'Time on page',
  requests: 'Requests',
  events: 'Events',
  value_sum: 'Value',
  value_average: 'Average value',
};

export const countLabel = (count: string) => LABELS[count] ?? count.replace(/_/g, ' ');

/** A count as the table shows it: scroll depth in percent, time on page as a duration, values to the hundredth. */
export function formatCountOf(count: string, n: number): string {
  if (count === 'scroll_depth') return `${formatCount(n)}%`;
  if (count === 'time_on_page') return formatDuration(n);
  if (count === 'value_sum' || count === 'value_average') return formatHundredths(n);
  return formatCount(n);
}

const csvCell = (text: string) => (/[",\n\r]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text);

/**
 * The rows shown, as CSV: the value's column, then each count as a plain number (the API's figures:
 * scroll depth in percent, time on page in seconds). A value starting with = + - @ is prefixed with '
 * so a spreadsheet never runs it as a formula.
 */
export function toCsv(valueHeading: string, counts: string[], rows: { value: string; counts: Record<string, number> }[]): string {
  const safe = (text: string) => csvCell(/^[=+\-@\t\r]/.test(text) ? `'${text}` : text);
  const head = [valueHeading, ...counts.map(countLabel)].map(safe).join(',');
  const body = rows.map((r) => [safe(r.value), ...counts.map((c) => String(r.counts[c] ?? 0))].join(','));
  return `${[head, ...body].join('\r\n')}\r\n`;
}
