import { z } from 'zod';
import type { Env } from '../../core/env.ts';

/**
 * The edge platform's custom-hostname API (Cloudflare for SaaS style): proxy-mode hostnames are
 * registered there, validated by it (TXT records it asks for), and removed there when removed here.
 * `{EDGE_API_URL}/zones/{EDGE_ZONE_ID}/custom_hostnames[/{id}]` with `Authorization: Bearer {EDGE_API_TOKEN}`.
 */
export interface EdgeConfig {
  url: string;
  token: string;
  zoneId: string;
  timeoutMs: number;
}

/** The edge settings, or null when proxy mode is not configured on this server. */
export function edgeConfig(env: Env): EdgeConfig | null {
  if (!env.EDGE_API_TOKEN || !env.EDGE_ZONE_ID) return null;
  return { url: env.EDGE_API_URL.replace(/\/+$/, ''), token: env.EDGE_API_TOKEN, zoneId: env.EDGE_ZONE_ID, timeoutMs: 10_000 };
}

/** The edge platform could not be reached, timed out, or failed on its side (5xx, unreadable answer). */
export class EdgeUnavailable extends Error {
  constructor(reason: string, options?: { cause?: unknown }) {
    super(`edge platform unavailable: ${reason}`, options);
    this.name = 'EdgeUnavailable';
  }
}

/** The edge platform refused the request (4xx other than "not found"). */
export class EdgeRefused extends Error {
  readonly status: number;
  readonly codes: number[];
  readonly messages: string[];
  constructor(status: number, codes: number[], messages: string[]) {
    super(`edge platform refused (${status}): ${messages.join('; ') || 'no reason given'}`);
    this.name = 'EdgeRefused';
    this.status = status;
    this.codes = codes;
    this.messages = messages;
  }
  /** The hostname is already registered in the zone (Cloudflare error 1406, or a 409). */
  get duplicate(): boolean {
    return this.status === 409 || this.codes.includes(1406);
  }
}

export interface EdgeTxtRecord {
  name: string;
  value: string;
}

/** What we keep of the edge platform's custom hostname. */
export interface EdgeHostname {
  id: string;
  hostname: string;
  /** Hostname status: pending, active, moved, deleted, ... */
  status: string;
  /** Certificate status: initializing, pending_validation, active, ... (null when not reported). */
  sslStatus: string | null;
  /** The TXT record proving ownership, while asked for. */
  ownership: EdgeTxtRecord | null;
  /** TXT records for certificate (DCV) validation, while asked for. */
  sslRecords: EdgeTxtRecord[];
}

const zErrors = z.array(z.object({ code: z.number().optional(), message: z.string().optional() }).loose()).optional();

const zValidationRecord = z.object({ txt_name: z.string().optional(), txt_value: z.string().optional() }).loose();

const zResult = z
  .object({
    id: z.string().min(1),
    hostname: z.string(),
    status: z.string().optional(),
    ssl: z
      .object({
        status: z.string().optional(),
        txt_name: z.string().optional(),
        txt_value: z.string().optional(),
        validation_records: z.array(zValidationRecord).optional().nullable(),
      })
      .loose()
      .optional()
      .nullable(),
    ownership_verification: z
      .object({ type: z.string().optional(), name: z.string().optional(), value: z.string().optional() })
      .loose()
      .optional()
      .nullable(),
  })
  .loose();

const zEnvelope = z.object({ success: z.boolean().optional(), errors: zErrors, result: z.unknown().optional() }).loose();

function toEdgeHostname(raw: z.infer<typeof zResult>): EdgeHostname {
  const ssl = raw.ssl ?? null;
  const sslRecords: EdgeTxtRecord[] = [];
  for (const r of ssl?.validation_records ?? []) {
    if (r.txt_name && r.txt_value) sslRecords.push({ name: r.txt_name, value: r.txt_value });
  }
  if (ssl?.txt_name && ssl.txt_value && !sslRecords.some((r) => r.name === ssl.txt_name && r.value === ssl.txt_value)) {
    sslRecords.push({ name: ssl.txt_name, value: ssl.txt_value });
  }
  const ov = raw.ownership_verification;
  const ownership =
    ov?.name && ov.value && (ov.type ?? 'txt').toLowerCase() === 'txt' ? { name: ov.name, value: ov.value } : null;
  return {
    id: raw.id,
    hostname: raw.hostname,
    status: raw.status ?? 'pending',
    sslStatus: ssl?.status ?? null,
    ownership,
    sslRecords,
  };
}

type Outcome = { kind: 'ok'; result: unknown } | { kind: 'not_found' };

async function call(cfg: EdgeConfig, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Outcome> {
  const url = `${cfg.url}/zones/${encodeURIComponent(cfg.zoneId)}/custom_hostnames${path}`;
  let res: Response;
  try {
    res = await fetch(url, {
      method,
      headers: {
        authorization: `Bearer ${cfg.token}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      signal: AbortSignal.timeout(cfg.timeoutMs),
    });
  } catch (err) {
    throw new EdgeUnavailable(err instanceof Error ? err.message : 'request failed', { cause: err });
  }
  const text = await res.text().catch(() => '');
  let json: unknown = null;
  try {
    json = text ? JSON.parse(text) : null;
  } catch {
    json = null;
  }
  const env = zEnvelope.safeParse(json);
  const errors = env.success ? (env.data.errors ?? []) : [];
  if (res.status === 404) return { kind: 'not_found' };
  if (res.status >= 500 || res.status === 429) throw new EdgeUnavailable(`status ${res.status}`);
  if (res.status >= 400 || (env.success && env.data.success === false)) {
    // Authentication failures are ours (a bad token or zone), not the caller's: the feature is unavailable.
    if (res.status === 401 || res.status === 403) throw new EdgeUnavailable(`status ${res.status} (check EDGE_API_TOKEN)`);
    throw new EdgeRefused(
      res.status,
      errors.flatMap((e) => (e.code === undefined ? [] : [e.code])),
      errors.flatMap((e) => (e.message ? [e.message] : [])),
    );
  }
  if (!env.success) throw new EdgeUnavailable(`unreadable answer (status ${res.status})`);
  return { kind: 'ok', result: env.data.result };
}

function parseResult(result: unknown): EdgeHostname {
  const parsed = zResult.safeParse(result);
  if (!parsed.success) throw new EdgeUnavailable('unreadable custom hostname in the answer');
  return toEdgeHostname(parsed.data);
}

/** Registers a custom hostname with TXT (DV) certificate validation; `originHost` becomes its custom origin. */
export async function createCustomHostname(
  cfg: EdgeConfig,
  input: { hostname: string; originHost?: string | undefined },
): Promise<EdgeHostname> {
  const body = {
    hostname: input.hostname,
    ssl: { method: 'txt', type: 'dv' },
    ...(input.originHost ? { custom_origin_server: input.originHost } : {}),
  };
  const out = await call(cfg, 'POST', '', body);
  if (out.kind === 'not_found')
    throw new EdgeUnavailable('the custom hostnames API was not found (check EDGE_API_URL and EDGE_ZONE_ID)');
  return parseResult(out.result);
}

/** The custom hostname's live state, or null when the edge platform no longer knows it. */
export async function getCustomHostname(cfg: EdgeConfig, id: string): Promise<EdgeHostname | null> {
  const out = await call(cfg, 'GET', `/${encodeURIComponent(id)}`);
  if (out.kind === 'not_found') return null;
  return parseResult(out.result);
}

/** Removes the custom hostname; one the edge platform no longer knows counts as removed. */
export async function deleteCustomHostname(cfg: EdgeConfig, id: string): Promise<void> {
  await call(cfg, 'DELETE', `/${encodeURIComponent(id)}`);
}
