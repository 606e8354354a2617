import { Ajv2020 } from 'ajv/dist/2020.js';
import ajvFormats from 'ajv-formats';
import { z } from 'zod';

// ajv-formats is CommonJS: seen from ESM, its plugin is the module's `default` property.
const addFormats = (ajvFormats as unknown as { default: (ajv: Ajv2020) => Ajv2020 }).default;

import { describe, expect, it } from 'vitest';
import { scopeMissing } from '../../../src/core/errors.ts';
import { answerResult, refusalResult } from '../../../src/faces/mcp/call.ts';
import { BATCH_VERSION, batchRefusal, MAX_BATCH } from '../../../src/faces/mcp/jsonrpc.ts';
import { buildTools, isReadOnly, toolInputSchema } from '../../../src/faces/mcp/tools.ts';
import type { Meta } from '../../../src/procedures/meta.ts';
import { listOperations, type Operation } from '../../../src/procedures/registry.ts';
import { appRouter } from '../../../src/router.ts';

/**
 * The tool names the spec lists (section "Meta and MCP"); generated tools must come from this set. Beside
 * them, rotate_site_pass_key, which issue 36 asks for, and the funnel, segment and
 * annotation tools of issue 40, list_site_properties (issue 40 item 2) and the alert tools (item 7).
 */
const SPEC_TOOLS = new Set(
  `get_me get_workspace list_members update_workspace create_member_invite delete_member_invite update_member
  delete_member list_tokens create_token delete_token list_sites get_site list_site_keys get_site_snippet
  get_site_install_status get_site_hostname list_site_goals list_site_experiments create_site update_site delete_site
  create_site_hostname verify_site_hostname delete_site_hostname create_site_key rotate_site_key delete_site_key
  update_site_settings create_site_goal delete_site_goal create_site_experiment update_site_experiment
  delete_site_experiment internal_link_site rotate_site_internal_link get_stats_catalogue get_site_stats
  query_site_stats batch_site_stats get_site_summary get_site_top get_site_goal_results get_site_experiment_results
  get_site_journeys get_site_bot get_site_bot_decisions update_site_bot rotate_site_pass_key get_site_search get_site_search_weeks
  update_site_search_google update_site_search_bing delete_site_search_google delete_site_search_bing export_site
  get_billing checkout_billing portal_billing plan_billing list_site_funnels create_site_funnel update_site_funnel
  delete_site_funnel get_site_funnel_results list_site_segments create_site_segment update_site_segment
  delete_site_segment list_site_annotations create_site_annotation update_site_annotation delete_site_annotation get_site_changes
  list_site_properties list_imports get_import create_import start_import delete_import list_alerts create_alert update_alert
  delete_alert`.split(/\s+/),
);

function fakeOp(meta: Partial<Meta>, input?: z.ZodType, type: Operation['type'] = 'mutation'): Operation {
  return {
    path: 'fake.op',
    type,
    meta: {
      auth: 'any',
      mcp: { tool: 'fake_tool' },
      openapi: { method: 'POST', path: '/v1/fake', summary: 'Do a fake thing' },
      ...meta,
    },
    input,
    output: undefined,
  };
}

describe('MCP tool schemas', () => {
  const input = z.object({ name: z.string().min(1).max(80), siteIds: z.array(z.string()).optional() }).strict();

  it('adds an optional idempotencyKey (1-255) to idempotent operations only', () => {
    const withKey = toolInputSchema(fakeOp({ idempotent: true }, input));
    expect(withKey.type).toBe('object');
    expect(withKey.properties?.idempotencyKey).toEqual(expect.objectContaining({ type: 'string', minLength: 1, maxLength: 255 }));
    expect(withKey.properties?.name).toEqual(expect.objectContaining({ type: 'string' }));
    expect(withKey.required).toEqual(['name']);

    const without = toolInputSchema(fakeOp({}, input));
    expect(without.properties).not.toHaveProperty('idempotencyKey');
    expect(without.required).toEqual(['name']);
  });

  it('is always an object, even for operations without input or with an optional one', () => {
    expect(toolInputSchema(fakeOp({}, undefined))).toEqual({ type: 'object', properties: {} });
    const optional = toolInputSchema(fakeOp({ idempotent: true }, z.object({}).strict().optional()));
    expect(optional.type).toBe('object');
    expect(Object.keys(optional.properties ?? {})).toEqual(['idempotencyKey']);
  });

  it('lists only operations with mcp meta, never person-only ones, and refuses duplicate names', () => {
    const ops = [
      fakeOp({}, input),
      { ...fakeOp({ mcp: undefined }), path: 'internal.op' },
      { ...fakeOp({ auth: 'person', mcp: { tool: 'person_tool' } }), path: 'person.op' },
    ];
    const tools = buildTools(ops);
    expect([...tools.keys()]).toEqual(['fake_tool']);
    expect(tools.get('fake_tool')?.definition).toMatchObject({ name: 'fake_tool', description: 'Do a fake thing' });
    expect(() => buildTools([fakeOp({}), fakeOp({})])).toThrow(/declared twice/);
  });

  it('every tool of the router is a spec tool with a description, an object schema, a key when it changes state', () => {
    const tools = buildTools(listOperations(appRouter));
    expect(tools.has('get_me')).toBe(true);
    for (const tool of tools.values()) {
      expect(SPEC_TOOLS.has(tool.name), `${tool.name} is not in the spec's tool list`).toBe(true);
      expect(tool.definition.description).toBeTruthy();
      expect(tool.definition.inputSchema.type).toBe('object');
      // The spec: every state-changing tool takes an optional idempotencyKey.
      if (!isReadOnly(tool.op)) expect(tool.definition.inputSchema.properties).toHaveProperty('idempotencyKey');
    }
  });

  it("every tool's inputSchema compiles as JSON Schema, and one with required arguments refuses a call without them", () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    addFormats(ajv);
    for (const tool of buildTools(listOperations(appRouter)).values()) {
      const validate = ajv.compile(tool.definition.inputSchema);
      const required = (tool.definition.inputSchema.required ?? []) as string[];
      if (required.length) expect(validate({}), `${tool.name} accepts a call without ${required.join(', ')}`).toBe(false);
    }
  });

  it('tells clients which tools only read, which destroy, which may be repeated, which reach outside', () => {
    const tools = buildTools(listOperations(appRouter));
    const hints = (name: string) => tools.get(name)?.definition.annotations;
    for (const name of ['get_site_summary', 'query_site_stats', 'batch_site_stats', 'list_sites', 'get_me']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: true });
    }
    for (const name of ['delete_site', 'delete_token', 'rotate_site_key', 'rotate_site_internal_link', 'delete_site_goal']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: true });
    }
    for (const name of ['create_site', 'create_token', 'create_site_goal', 'internal_link_site']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
    }
    for (const name of ['update_site_settings', 'update_member']) {
      expect(hints(name), name).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    }
    // Its retentionDays deletes the analytics older than them: a client that runs non-destructive tools unasked ran it.
    expect(hints('update_site')).toMatchObject({ readOnlyHint: false, destructiveHint: true, idempotentHint: true });
    for (const name of ['verify_site_hostname', 'create_site_hostname', 'delete_site']) {
      expect(hints(name), name).toMatchObject({ openWorldHint: true });
    }
    expect(hints('get_site_summary')).toMatchObject({ openWorldHint: false });
  });

  it('describes every tool for a model: what it is for and what its arguments mean', () => {
    for (const tool of buildTools(listOperations(appRouter)).values()) {
      const text = tool.definition.description ?? '';
      expect(text.length, `${tool.name} needs a description written for a model`).toBeGreaterThan(60);
      expect(tool.op.meta.mcp?.description, `${tool.name} has no description of its own`).toBeTruthy();
    }
  });
});

describe('MCP tool results', () => {
  it('carries an object answer as JSON text and as structuredContent', () => {
    const data = { id: 'a', n: 1 };
    expect(answerResult(data)).toEqual({ content: [{ type: 'text', text: JSON.stringify(data) }], structuredContent: data });
    expect(answerResult(undefined)).toEqual({ content: [{ type: 'text', text: 'null' }] });
  });

  it('makes a refusal an isError result whose text starts with what to do, and whose structuredContent is the problem', () => {
    const result = refusalResult(scopeMissing('members:read', 'ask a workspace owner for a token that has it'));
    expect(result.isError).toBe(true);
    expect(result.content[0]).toEqual({
      type: 'text',
      text: 'Missing scope members:read: ask a workspace owner for a token that has it (403)',
    });
    expect(result.structuredContent).toEqual({
      type: '/problems/scope-missing',
      code: 'scope-missing',
      title: 'Missing scope members:read: ask a workspace owner for a token that has it',
      status: 403,
    });
  });
});

describe('MCP batch rules', () => {
  const msg = (id: number) => ({ jsonrpc: '2.0', id, method: 'tools/list' });

  it(`serves batches of 1 to ${MAX_BATCH} messages for ${BATCH_VERSION} only`, () => {
    expect(batchRefusal([msg(1), msg(2)], undefined)).toBeUndefined();
    expect(batchRefusal([msg(1)], BATCH_VERSION)).toBeUndefined();
    expect(batchRefusal([], undefined)).toMatch(/empty/);
    expect(
      batchRefusal(
        Array.from({ length: MAX_BATCH + 1 }, (_, i) => msg(i)),
        undefined,
      ),
    ).toMatch(/at most 20/);
    expect(batchRefusal([msg(1)], '2025-06-18')).toMatch(/only with protocol version 2025-03-26/);
    const modern = { ...msg(1), params: { _meta: { 'io.modelcontextprotocol/protocolVersion': '2026-07-28' } } };
    expect(batchRefusal([modern], undefined)).toMatch(/only with protocol version 2025-03-26/);
    expect(batchRefusal([{ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }], undefined)).toMatch(/initialize/);
  });
});
