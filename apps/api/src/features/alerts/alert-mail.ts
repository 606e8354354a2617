// The e-mail of an alert that fired: what happened, the period's figure against the usual one, a link to
// the dashboard for that day, and the one-click unsubscribe link of this rule's mail.
import type { AlertKind } from '@us/shared';
import type { Mail } from '../../core/mail/mailer.ts';
import { boundedSiteName } from '../reports/index.ts';
import type { AlertFigures } from './figures.ts';
import { periodName } from './periods.ts';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
const count = (n: number) => new Intl.NumberFormat('en', { maximumFractionDigits: 1 }).format(n);

const HEADLINES: Record<AlertKind, string> = {
  traffic_spike: 'Traffic spike',
  traffic_drop: 'Traffic drop',
  goal_drop: 'Goal conversions fell',
  first_pageview: 'First pageview',
};

export interface AlertMailInput {
  to: string;
  siteName: string;
  kind: AlertKind;
  goal: string | null;
  period: string;
  figures: AlertFigures;
  changePercent: number | null;
  dashboardLink: string;
  unsubscribeLink: string;
}

/** What the figure is, in words. */
function measured(a: AlertMailInput): string {
  if (a.kind === 'first_pageview')
    return `${count(a.figures.current)} ${a.figures.current === 1 ? 'pageview' : 'pageviews'} so far`;
  const noun = a.kind === 'goal_drop' ? `visitors who completed "${boundedSiteName(a.goal ?? '')}"` : 'visitors';
  return `${count(a.figures.current)} ${noun} in ${periodName(a.period)}`;
}

export function alertMail(a: AlertMailInput): Mail {
  const site = boundedSiteName(a.siteName);
  const headline = `${HEADLINES[a.kind]} on ${site}`;
  const lines = [measured(a)];
  if (a.figures.baseline !== null) {
    const change = a.changePercent === null ? '' : ` (${a.changePercent >= 0 ? '+' : ''}${a.changePercent}%)`;
    lines.push(`Usual figure: ${count(a.figures.baseline)}, the average of the same time over the previous 4 weeks${change}.`);
  } else {
    lines.push('The site has started counting visitors.');
  }
  const why = `You get this because a member of the site's workspace added ${a.to} to this alert.`;
  return {
    to: a.to,
    subject: headline,
    text: `${headline}\n\n${lines.join('\n')}\n\nThe dashboard: ${a.dashboardLink}\n\n${why} Unsubscribe from this alert: ${a.unsubscribeLink}\n`,
    html: [
      `<p><strong>${esc(headline)}</strong></p>`,
      ...lines.map((l) => `<p>${esc(l)}</p>`),
      `<p><a href="${esc(a.dashboardLink)}">Open the dashboard</a></p>`,
      `<p style="color:#666">${esc(why)} <a href="${esc(a.unsubscribeLink)}">Unsubscribe from this alert</a></p>`,
    ].join(''),
  };
}
