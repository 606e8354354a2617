import type { SummaryMeasure } from '@us/shared';
import type { Mail } from '../../core/mail/mailer.ts';
import type { Change, Move } from './changes.ts';
import { bounded } from './confirm-mail.ts';
import type { ReportFigures } from './figures.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Names typed by people go into a header: no line breaks or other control characters there. */
const oneLine = (s: string) => s.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
/** The most of a source or page a report shows. */
export const VALUE_IN_MAIL = 100;
/** Sources and pages come from visitors: one line each, so none writes lines of its own into the mail. */
const shown = (value: string) => bounded(value, VALUE_IN_MAIL);
const count = (n: number) => new Intl.NumberFormat('en').format(Math.round(n * 100) / 100);
const signed = (n: number) => `${n >= 0 ? '+' : ''}${count(n)}`;
const seconds = (s: number) => (s >= 60 ? `${Math.floor(s / 60)}m ${Math.round(s % 60)}s` : `${Math.round(s)}s`);
const percent = (n: number) => `${count(n)}%`;

/** "1,234 (previous period 1,100, +12.2%)": the figure, the previous period's and the API's change. */
function withPrevious(m: SummaryMeasure, format: (n: number) => string): string {
  if (m.previous === null) return format(m.value);
  const change = m.change === null ? '' : `, ${signed(m.change)}%`;
  return `${format(m.value)} (previous period ${format(m.previous)}${change})`;
}

/** The headline lines: label and text. */
function headline(f: ReportFigures): [string, string][] {
  const m = f.summary.measures;
  return [
    ['Visitors', withPrevious(f.visitors, count)],
    ['Sessions', withPrevious(m.sessions, count)],
    ['Pageviews', withPrevious(m.pageviews, count)],
    ['From search', withPrevious(m.fromSearch, count)],
    ['Bounce rate', withPrevious(m.bounceRate, percent)],
    ['Average visit', withPrevious(m.averageSession, seconds)],
  ];
}

const moveLine = (word: string, m: Move) =>
  `${word}: ${m.dimension} ${shown(m.value)}, ${count(m.before)} → ${count(m.now)} visitors (${signed(m.now - m.before)})`;
const rowText = (r: Change) =>
  r.before === null ? count(r.now) : `${count(r.now)} (was ${count(r.before)}, ${signed(r.now - r.before)})`;

/**
 * The weekly or monthly report: People visitors and the summary's measures beside the previous period,
 * the biggest rise and fall among sources and pages, the top five of each by visitors, the dashboard for
 * the period and a one-click unsubscribe link. Text and HTML say the same; the HTML escapes every value.
 */
export function reportMail(opts: {
  to: string;
  siteName: string;
  frequency: 'weekly' | 'monthly';
  periodName: string;
  figures: ReportFigures;
  dashboardLink: string;
  unsubscribeLink: string;
}): Mail {
  const site = oneLine(opts.siteName);
  const f = opts.figures;
  const kind = opts.frequency === 'weekly' ? 'Weekly' : 'Monthly';
  const title = `${kind} report for ${site}, ${opts.periodName}`;
  const zone = `People, days in ${f.summary.timezone}`;
  const compared = f.summary.comparison.available
    ? `Compared with the previous period, ${f.summary.previousFrom} – ${f.summary.previousTo}.`
    : `No comparison: ${f.summary.comparison.reason ?? 'no earlier period'}.`;
  const moves = [f.rose && moveLine('Biggest rise', f.rose), f.fell && moveLine('Biggest fall', f.fell)].filter(
    (x): x is string => Boolean(x),
  );
  const tables = [
    { title: 'Top sources by visitors', rows: f.sources },
    { title: 'Top pages by visitors', rows: f.pages },
  ].filter((t) => t.rows.length > 0);
  const why = `You get this ${opts.frequency} report because a member of the site's workspace added ${opts.to}.`;

  const text = [
    `${title} (${zone}).`,
    compared,
    '',
    ...headline(f).map(([k, v]) => `${k}: ${v}`),
    '',
    ...(moves.length ? [...moves, ''] : []),
    ...tables.flatMap((t) => [t.title, ...t.rows.map((r) => `  ${shown(r.value)}: ${rowText(r)}`), '']),
    `The dashboard for this period: ${opts.dashboardLink}`,
    '',
    `${why} Unsubscribe: ${opts.unsubscribeLink}`,
  ];
  const html = [
    `<p>${esc(title)} <span style="color:#666">(${esc(zone)})</span></p>`,
    `<table>${headline(f)
      .map(([k, v]) => `<tr><td>${esc(k)}</td><td><strong>${esc(v)}</strong></td></tr>`)
      .join('')}</table>`,
    `<p style="color:#666">${esc(compared)}</p>`,
    ...moves.map((m) => `<p>${esc(m)}</p>`),
    ...tables.map(
      (t) =>
        `<h3>${esc(t.title)}</h3><table>${t.rows
          .map((r) => `<tr><td>${esc(shown(r.value))}</td><td align="right">${esc(rowText(r))}</td></tr>`)
          .join('')}</table>`,
    ),
    `<p><a href="${esc(opts.dashboardLink)}">Open the dashboard for this period</a></p>`,
    `<p style="color:#666">${esc(why)} <a href="${esc(opts.unsubscribeLink)}">Unsubscribe</a></p>`,
  ];
  const visitors = f.visitors;
  const change = visitors.change === null ? '' : ` (${signed(visitors.change)}%)`;
  return {
    to: opts.to,
    subject: `${kind} report for ${site}: ${count(visitors.value)} ${visitors.value === 1 ? 'visitor' : 'visitors'}${change}`,
    text: `${text.join('\n')}\n`,
    html: html.join(''),
  };
}
