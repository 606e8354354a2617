import { budgetClient } from '../security/client-info.ts';
import type { HotStore } from './store.ts';
import { hotAnswer } from './within.ts';

/**
 * Requests one address may make per minute, counted before anything is checked (a signature, a
 * database row, a hash): a stranger hammering the check or `/_us/pass` is turned away cheaply.
 * `/_us/pass` arrives from the edges' few addresses on behalf of many visitors, hence its larger budget.
 */
export const CHECK_BUDGETS = {
  /**
   * GET and POST of the check page, per browser: address and user agent, so one client behind a carrier NAT
   * cannot spend the check of everyone else on that address (issue 36, shared addresses)…
   */
  check: 60,
  /** …and per address whatever the user agent: varying it buys a stranger no more than this. */
  checkAddress: 1200,
  /** `/_us/pass`, per connecting address (an edge, or a visitor in proxy mode). */
  pass: 1200,
  /**
   * `/_us/internal` (a team member following an internal link), per connecting address: each looks its Host up in
   * the database before the link is read, so without a budget a stranger's loop held the main pool.
   */
  internal: 120,
  /**
   * `/share/<token>` pages, per connecting address: whether the link may be framed is looked up before the page is
   * sent. Past the budget the page is sent all the same, with no frame allowed (no lookup).
   */
  sharePage: 120,
  /**
   * The payment provider's webhook, per sending address: requests whose signature fails only (a signed
   * event is never refused for a budget; features/billing/billing-webhook.ts).
   */
  billingWebhook: 600,
} as const;

/**
 * Counts one request and says whether the client at `ip` (its IPv6 /64: `budgetClient`), with `also` when given
 * (a user agent), is past its budget. The count must not hold a visitor up: when the hot store is slow (100 ms) or
 * down, the request goes through uncounted.
 */
export async function overBudget(hot: HotStore, face: keyof typeof CHECK_BUDGETS, ip: string, also?: string): Promise<boolean> {
  const who = also === undefined ? budgetClient(ip) : `${budgetClient(ip)}\n${also}`;
  const n = await hotAnswer(hot, hot.incr(`check-budget:${face}:${hot.tag(who)}`, 60), 100, 0);
  return n > CHECK_BUDGETS[face];
}
