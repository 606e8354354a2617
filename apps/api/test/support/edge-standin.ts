import { randomBytes, randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/** A custom hostname as the stand-in keeps it (Cloudflare-for-SaaS shape). */
export interface StandInHostname {
  id: string;
  hostname: string;
  status: string;
  custom_origin_server?: string;
  ssl: { status: string; method: string; type: string; validation_records: { txt_name: string; txt_value: string }[] };
  ownership_verification: { type: 'txt'; name: string; value: string };
  created_at: string;
}

export interface EdgeCall {
  method: string;
  path: string;
  authorization: string | undefined;
  body: unknown;
}

/**
 * A stand-in for the edge platform's custom-hostname API on 127.0.0.1: POST/GET/DELETE
 * `/zones/{zone}/custom_hostnames[/{id}]`, Bearer token checked, in-memory state. `activate(hostname)`
 * plays the platform's validation succeeding. Options: `allowDuplicates` (so two racing registrations
 * both succeed), `createDelayMs` (holds registrations back) and `holdCreates` (registrations wait for it).
 */
export async function startEdgeStandIn(opts: { token?: string; zoneId?: string } = {}) {
  const token = opts.token ?? 't';
  const zoneId = opts.zoneId ?? 'z';
  const hostnames = new Map<string, StandInHostname>();
  const calls: EdgeCall[] = [];
  const settings = { allowDuplicates: false, createDelayMs: 0, holdCreates: null as Promise<void> | null };

  const send = (res: ServerResponse, status: number, body: unknown) => {
    res.writeHead(status, { 'content-type': 'application/json' });
    res.end(JSON.stringify(body));
  };
  const fail = (res: ServerResponse, status: number, code: number, message: string) =>
    send(res, status, { success: false, errors: [{ code, message }], messages: [], result: null });

  const readBody = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const text = Buffer.concat(chunks).toString('utf8');
    return text ? (JSON.parse(text) as unknown) : undefined;
  };

  const server = createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://edge');
    const body = await readBody(req).catch(() => undefined);
    calls.push({ method: req.method ?? '', path: url.pathname, authorization: req.headers.authorization, body });
    if (req.headers.authorization !== `Bearer ${token}`) return fail(res, 403, 10000, 'Authentication error');
    const m = /^\/client\/v4\/zones\/([^/]+)\/custom_hostnames(?:\/([^/]+))?$/.exec(url.pathname);
    if (!m || m[1] !== zoneId) return fail(res, 404, 7003, 'Could not route to this path');
    const id = m[2];
    if (req.method === 'POST' && !id) {
      const input = body as { hostname?: string; ssl?: { method?: string; type?: string }; custom_origin_server?: string };
      if (!input?.hostname) return fail(res, 400, 1411, 'Hostname is required');
      if (!settings.allowDuplicates && [...hostnames.values()].some((h) => h.hostname === input.hostname)) {
        return fail(res, 409, 1406, 'Duplicate custom hostname found.');
      }
      if (settings.createDelayMs) await new Promise((r) => setTimeout(r, settings.createDelayMs));
      if (settings.holdCreates) await settings.holdCreates;
      const row: StandInHostname = {
        id: randomUUID(),
        hostname: input.hostname,
        status: 'pending',
        ...(input.custom_origin_server ? { custom_origin_server: input.custom_origin_server } : {}),
        ssl: {
          status: 'pending_validation',
          method: input.ssl?.method ?? 'txt',
          type: input.ssl?.type ?? 'dv',
          validation_records: [
            { txt_name: `_acme-challenge.${input.hostname}`, txt_value: randomBytes(12).toString('base64url') },
          ],
        },
        ownership_verification: { type: 'txt', name: `_cf-custom-hostname.${input.hostname}`, value: randomUUID() },
        created_at: new Date().toISOString(),
      };
      hostnames.set(row.id, row);
      return send(res, 201, { success: true, errors: [], messages: [], result: row });
    }
    if (id && req.method === 'GET') {
      const row = hostnames.get(id);
      if (!row) return fail(res, 404, 1436, 'The custom hostname was not found.');
      return send(res, 200, { success: true, errors: [], messages: [], result: row });
    }
    if (id && req.method === 'DELETE') {
      if (!hostnames.delete(id)) return fail(res, 404, 1436, 'The custom hostname was not found.');
      return send(res, 200, { success: true, errors: [], messages: [], result: { id } });
    }
    return fail(res, 405, 10405, 'Method not allowed');
  });
  server.listen(0, '127.0.0.1');
  await new Promise<void>((r) => server.once('listening', () => r()));
  const port = (server.address() as AddressInfo).port;
  const url = `http://127.0.0.1:${port}/client/v4`;

  return {
    url,
    token,
    zoneId,
    /** The env a test server needs to use this stand-in. */
    env: { EDGE_API_URL: url, EDGE_API_TOKEN: token, EDGE_ZONE_ID: zoneId },
    hostnames,
    calls,
    settings,
    byHostname: (hostname: string) => [...hostnames.values()].filter((h) => h.hostname === hostname),
    /** The platform's validation succeeds: the hostname and its certificate become active. */
    activate(hostname: string) {
      for (const h of hostnames.values()) {
        if (h.hostname !== hostname) continue;
        h.status = 'active';
        h.ssl.status = 'active';
      }
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((r) => server.close(() => r()));
    },
  };
}
export type EdgeStandIn = Awaited<ReturnType<typeof startEdgeStandIn>>;
