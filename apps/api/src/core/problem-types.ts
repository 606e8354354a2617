/**
 * The problem types (RFC 9457): the `code` every refusal carries, the status it comes with, a short
 * generic title and what it means for a client. A problem's `type` is `/problems/<code>`, a reference
 * relative to the answer's URL, so it names this same service, which serves the entry at that path.
 * The one table: AppError's codes, GET /problems/<code> and docs/api/problems.md (checked by a test)
 * all follow it. A refusal's own `title` stays specific; the title here names the type.
 */
export interface ProblemType {
  /** The status the type comes with; `alsoAs` lists the rarer statuses it is sent with too. */
  status: number;
  alsoAs?: readonly number[];
  title: string;
  description: string;
}

export const PROBLEM_TYPES = {
  validation: {
    status: 400,
    alsoAs: [405],
    title: 'Refused input',
    description:
      'The request was refused as sent: a value, a field, the body or the request itself (405: a method the path does not take; the Allow header lists those it does). `field` names the culprit (such as `scopes[2]` or `(body)`); fix it as the title says, then send again.',
  },
  unauthenticated: {
    status: 401,
    title: 'Not authenticated',
    description:
      'No credentials, unknown, revoked or expired ones, or a wrong password or code. Send a valid API token as `Authorization: Bearer <token>`, or sign in again.',
  },
  'email-not-verified': {
    status: 401,
    title: 'E-mail address not confirmed',
    description:
      'The password was right but the account’s address is not confirmed yet. Open the link in the confirmation e-mail, or ask for a new one (POST /v1/auth/verify/resend).',
  },
  'payment-method-required': {
    status: 402,
    title: 'Payment method needed',
    description:
      'A paid plan needs a payment method first. Start a checkout (POST /v1/billing/checkout); the plan changes once it is paid.',
  },
  'payment-past-due': {
    status: 402,
    title: 'Last payment failed',
    description:
      'The subscription’s last payment failed: a larger plan waits until the card is updated in the billing portal (POST /v1/billing/portal). A smaller plan or Free can be chosen meanwhile.',
  },
  'payment-declined': {
    status: 402,
    title: 'Payment declined',
    description:
      'The card was declined for the plan change’s charge, so the plan stays as it was. Update the card in the billing portal (POST /v1/billing/portal): the change takes effect once the payment goes through (within 23 hours), or ask for it again.',
  },
  'plan-limit': {
    status: 402,
    title: 'Plan limit reached',
    description:
      'The workspace’s plan does not allow this (more sites, members or proxy-mode hostnames). Upgrade the plan, or free an allowance first.',
  },
  'scope-missing': {
    status: 403,
    title: 'Scope missing',
    description:
      'The caller lacks a scope this needs; the title names it. Use a token with that scope, or ask a workspace owner for a role that has it. Retrying as is will not help.',
  },
  forbidden: {
    status: 403,
    title: 'Not allowed',
    description:
      'Not allowed for this kind of caller whatever its scopes: a person-only route called with a token, a role that may not do it, a site-restricted token, a shared link, a cross-site request. Do it as the title says, usually signed in to the dashboard.',
  },
  'not-found': {
    status: 404,
    title: 'Not found',
    description:
      'No such resource in this workspace (another workspace’s ids are not found either), or no such route. Check the id, the workspace (X-Workspace) and the path.',
  },
  conflict: {
    status: 409,
    title: 'Conflict with the current state',
    description:
      'The change conflicts with how things are now: it exists already, a limit of the resource is reached, or something it needs was changed meanwhile. Reload, resolve as the title says, then try again.',
  },
  'idempotency-in-progress': {
    status: 409,
    title: 'Same request still running',
    description:
      'A request with this Idempotency-Key is still running. Wait a moment, then send it again with the same key: you get its answer once it is done.',
  },
  gone: {
    status: 410,
    title: 'Gone',
    description: 'The link has expired. Make a new one (for a download: a new export).',
  },
  'too-large': {
    status: 413,
    alsoAs: [431],
    title: 'Too large',
    description:
      'The body (413) or the URL and headers (431) are larger than allowed. Send less at once: fewer records per request, a shorter URL.',
  },
  'idempotency-mismatch': {
    status: 422,
    title: 'Idempotency-Key reused',
    description: 'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
  },
  'rate-limited': {
    status: 429,
    title: 'Too many requests',
    description: 'Too many requests of this kind. Wait `retryAfter` seconds (also the Retry-After header), then try again.',
  },
  internal: {
    status: 500,
    title: 'Internal error',
    description: 'Something went wrong on the service’s side; it is logged. Try again in a moment.',
  },
  'origin-unreachable': {
    status: 502,
    title: 'Origin unreachable',
    description:
      'Proxy mode: the site’s origin could not be reached (connection refused or cut, name not found, TLS failed). The site’s owner checks that the origin of the proxy hostname is up and reachable; visitors try again later.',
  },
  'not-configured': {
    status: 503,
    title: 'Not configured on this server',
    description:
      'The operator of this server has not set up what this needs (a payment provider, an edge platform for proxy mode, a search service account). Retrying will not help: do without it as the title says, or ask the operator.',
  },
  unavailable: {
    status: 503,
    alsoAs: [408],
    title: 'Temporarily unavailable',
    description:
      'Something this depends on is down or busy, results are still being prepared, the question took longer than allowed, or the server is restarting (408: the request itself arrived too slowly). Try again later: after `retryAfter` seconds when given, or as the title says.',
  },
  'origin-timeout': {
    status: 504,
    title: 'Origin too slow',
    description:
      'Proxy mode: the site’s origin did not accept the connection or did not start its answer in time (the limits are in the operations docs, "Proxy mode"). The site’s owner checks why the origin is slow; visitors try again later.',
  },
} as const satisfies Record<string, ProblemType>;

export type ProblemCode = keyof typeof PROBLEM_TYPES;

export const PROBLEM_CODES = Object.keys(PROBLEM_TYPES) as ProblemCode[];

export const isProblemCode = (code: string): code is ProblemCode => Object.hasOwn(PROBLEM_TYPES, code);

/** The `type` of a problem with this code: relative, so it resolves against the answer's own URL. */
export const problemTypeUri = (code: ProblemCode) => `/problems/${code}`;
