import type { Tool } from '@modelcontextprotocol/server';
import { LIMITS } from '@us/shared';
import { z } from 'zod';
import type { Operation } from '../../procedures/registry.ts';

/** One MCP tool: the operation behind it and what tools/list shows. */
export interface McpTool {
  name: string;
  op: Operation;
  definition: Tool;
}

/** The argument that carries an idempotency key; it is stripped before the operation sees its input. */
export const IDEMPOTENCY_ARG = 'idempotencyKey';

type JsonSchema = Record<string, unknown> & { properties?: Record<string, unknown> };

/**
 * JSON Schema of a tool's arguments: the operation's zod input, always an object (MCP requires it),
 * plus an optional `idempotencyKey` for operations that honour one.
 */
export function toolInputSchema(op: Pick<Operation, 'input' | 'meta'>): Tool['inputSchema'] {
  const base = (op.input ? z.toJSONSchema(op.input, { io: 'input', unrepresentable: 'any' }) : {}) as JsonSchema;
  const properties: Record<string, unknown> = { ...(base.properties ?? {}) };
  if (op.meta.idempotent) {
    properties[IDEMPOTENCY_ARG] = {
      type: 'string',
      minLength: LIMITS.idempotencyKey.min,
      maxLength: LIMITS.idempotencyKey.max,
      description: 'Optional. Repeating a call with the same key within 24 hours returns the first answer.',
    };
  }
  return { ...base, type: 'object', properties } as Tool['inputSchema'];
}

/** Whether an operation changes nothing: a query, or a POST that only reads (stats queries). */
export const isReadOnly = (op: Pick<Operation, 'type' | 'meta'>) => op.type === 'query' || op.meta.readOnly === true;

/**
 * The hints a client shows its user before a call: read-only tools change nothing; destructive ones
 * end something (DELETE routes, rotations); idempotent ones have no further effect when repeated with
 * the same arguments (PUT, PATCH, DELETE); open-world ones reach outside this service (DNS, the edge
 * platform).
 */
export function toolAnnotations(op: Pick<Operation, 'type' | 'meta'>): NonNullable<Tool['annotations']> {
  const method = op.meta.openapi?.method;
  const openWorldHint = op.meta.external === true;
  if (isReadOnly(op)) return { title: op.meta.openapi?.summary, readOnlyHint: true, openWorldHint };
  return {
    title: op.meta.openapi?.summary,
    readOnlyHint: false,
    destructiveHint: method === 'DELETE' || op.meta.destructive === true,
    idempotentHint: method === 'PUT' || method === 'PATCH' || method === 'DELETE',
    openWorldHint,
  };
}

/** What a model reads to choose the tool: the procedure's own words for it, else its REST summary and description. */
export function toolDescription(op: Pick<Operation, 'path' | 'meta'>): string {
  if (op.meta.mcp?.description) return op.meta.mcp.description;
  const { summary, description } = op.meta.openapi ?? {};
  return [summary, description].filter(Boolean).join('. ') || op.path;
}

/**
 * Every operation with `mcp` meta as a tool, keyed by name. Person-only operations are never tools
 * (MCP takes tokens only), even if one were given a tool name by mistake.
 */
export function buildTools(ops: Operation[]): Map<string, McpTool> {
  const tools = new Map<string, McpTool>();
  for (const op of ops) {
    const name = op.meta.mcp?.tool;
    if (!name || op.meta.auth === 'person') continue;
    if (tools.has(name)) throw new Error(`MCP tool ${name} is declared twice (${op.path})`);
    const definition: Tool = {
      name,
      description: toolDescription(op),
      inputSchema: toolInputSchema(op),
      annotations: toolAnnotations(op),
    };
    tools.set(name, { name, op, definition });
  }
  return tools;
}
