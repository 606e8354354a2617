import type { Tool } from '@modelcontextprotocol/server';
import { LIMITS } from '@us/shared';
import { z } from 'zod';
import type { Operation } from '../trpc/registry.ts';

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
      description: op.meta.openapi?.summary ?? op.path,
      inputSchema: toolInputSchema(op),
      annotations: { readOnlyHint: op.type === 'query' },
    };
    tools.set(name, { name, op, definition });
  }
  return tools;
}
