export type Face = 'rest' | 'trpc' | 'mcp';

/** What a face knows about the HTTP request, in a face-independent shape. */
export interface RequestInfo {
  face: Face;
  method: string;
  ip: string | undefined;
  userAgent: string | undefined;
  /** Value of the us_session cookie (never on /mcp). */
  sessionCookie: string | undefined;
  bearer: string | undefined;
  /** X-Share-View header: a view opened from a shared link (tRPC face only). */
  shareView?: string | undefined;
  /** X-Workspace header or ?workspace= query. */
  workspaceHint: string | undefined;
  origin: string | undefined;
  secFetchSite: string | undefined;
  host: string | undefined;
  /** This request's own origin as the browser sees it (scheme and host). */
  selfOrigin: string | undefined;
  /** True when the request reached us over plain http on localhost (cookies then drop Secure). */
  insecureLocalhost: boolean;
}
