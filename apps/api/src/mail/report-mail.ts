import type { ReportFigures } from '../services/reports/figures.ts';
import type { Mail } from './mailer.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
/** Names typed by people go into a header: no line breaks or other control characters there. */
const oneLine = (s: string) => s.replace(/[\p{Cc}\u2028\u2029]+/gu, ' ').trim();
const count = (n: number) => new Intl.NumberFormat('en').format(Math.round(n * 100) / 100);
const change = (c: number | null) => (c === null ? '' : ` (${c > 0 ? '+' : ''}${count(c)}%)`);
const seconds = (s: number) => (s >= 60 ? `${Math.floor(s / 60)}m ${Math.round(s % 60)}s` : `${Math.round(s)}s`);

/** The headline lines of the report, as text: label, value, change. */
function headline(f: ReportFigures): [string, string][] {
  const m = f.summary.measures;
  return [
    ['Sessions', `${count(m.sessions.value)}${change(m.sessions.change)}`],
    ['Pageviews', `${count(m.pageviews.value)}${change(m.pageviews.change)}`],
    ['From search', `${count(m.fromSearch.value)}${change(m.fromSearch.change)}`],
    ['Bounce rate', `${count(m.bounceRate.value)}%${change(m.bounceRate.change)}`],
    ['Average session', `${seconds(m.averageSession.value)}${change(m.averageSession.change)}`],
  ];
}

const delta = (now: number, before: number) => `${now - before >= 0 ? '+' : ''}${count(now - before)}`;

/**
 * The weekly or monthly report: headline figures with their change against the previous period, the
 * biggest rise and fall among sources and pages, the top five of each, the dashboard for the period and
 * a one-click unsubscribe link.
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
  const sessions = f.summary.measures.sessions;
  const compared = f.summary.comparison.available
    ? `Compared with ${f.summary.previousFrom} – ${f.summary.previousTo}.`
    : `No comparison: ${f.summary.comparison.reason ?? 'no earlier period'}.`;
  const moves = [
    f.rose && `Biggest rise: ${f.rose.dimension} ${f.rose.value}, ${delta(f.rose.now, f.rose.before)} sessions`,
    f.fell && `Biggest fall: ${f.fell.dimension} ${f.fell.value}, ${delta(f.fell.now, f.fell.before)} sessions`,
  ].filter((x): x is string => Boolean(x));
  const table = (title: string, rows: ReportFigures['sources']) =>
    rows.length === 0 ? [] : [title, ...rows.map((r) => `  ${r.value}: ${count(r.now)} (${delta(r.now, r.before)})`)];
  const lines = [
    `${kind} report for ${site}, ${opts.periodName} (People, days in ${f.summary.timezone}).`,
    compared,
    '',
    ...headline(f).map(([k, v]) => `${k}: ${v}`),
    '',
    ...moves,
    ...(moves.length ? [''] : []),
    ...table('Top sources (sessions, change)', f.sources),
    ...table('Top pages (sessions begun there, change)', f.pages),
    '',
    `The dashboard for this period: ${opts.dashboardLink}`,
    '',
    `You get this ${opts.frequency} because a member of the site's workspace added ${opts.to}. Unsubscribe: ${opts.unsubscribeLink}`,
  ];
  const htmlTable = (title: string, rows: ReportFigures['sources']) =>
    rows.length === 0
      ? ''
      : `<h3>${esc(title)}</h3><table>${rows
          .map(
            (r) =>
              `<tr><td>${esc(r.value)}</td><td align="right">${count(r.now)}</td><td align="right">${delta(r.now, r.before)}</td></tr>`,
          )
          .join('')}</table>`;
  const html =
    `<p>${esc(`${kind} report for ${site}, ${opts.periodName}`)} <span style="color:#666">(People, days in ${esc(f.summary.timezone)})</span></p>` +
    `<table>${headline(f)
      .map(([k, v]) => `<tr><td>${esc(k)}</td><td><strong>${esc(v)}</strong></td></tr>`)
      .join('')}</table><p style="color:#666">${esc(compared)}</p>` +
    moves.map((m) => `<p>${esc(m)}</p>`).join('') +
    htmlTable('Top sources', f.sources) +
    htmlTable('Top pages', f.pages) +
    `<p><a href="${esc(opts.dashboardLink)}">Open the dashboard for this period</a></p>` +
    `<p style="color:#666">You get this ${opts.frequency} because a member of the site's workspace added ${esc(opts.to)}. ` +
    `<a href="${esc(opts.unsubscribeLink)}">Unsubscribe</a></p>`;
  return {
    to: opts.to,
    subject: `${kind} report for ${site}: ${count(sessions.value)} sessions${change(sessions.change)}`,
    text: `${lines.join('\n')}\n`,
    html,
  };
}
