/**
 * Proxy mode's timeouts and limits (docs/operations/proxy-mode.md, "Timeouts and limits"). An origin that
 * cannot be reached answers 502, one that does not connect or start its answer in time 504; a site past its
 * share of requests in progress answers 503 with Retry-After, a client network past its share of them 429.
 */
export const PROXY_LIMITS = {
  /** Opening a connection to the origin, TCP and TLS. */
  connectTimeoutMs: 5_000,
  /** From the request sent until the origin's status and headers. */
  headersTimeoutMs: 30_000,
  /** The longest pause between two pieces of the origin's answer body (a stream may go on for as long as it moves). */
  bodyIdleTimeoutMs: 30_000,
  /** Proxied requests one site may have in progress on one node, so one slow origin cannot hold every socket. */
  concurrentPerSite: 256,
  /**
   * Of those, one client network's (its /24 or /48) at most: a body sent a byte at a time holds its request for
   * minutes, and one client's few hundred such requests filled the site's share for every visitor.
   */
  concurrentPerClient: 32,
  /** An idle connection to an origin is kept this long for the next request. */
  keepAliveMs: 4_000,
  /**
   * Lookups of a Host this node holds no answer for, per client address and minute (then 429 without one): a
   * made-up name per request would otherwise be a database query per request.
   */
  hostLookupsPerAddress: 120,
} as const;

export type ProxyLimits = { -readonly [K in keyof typeof PROXY_LIMITS]: number };
