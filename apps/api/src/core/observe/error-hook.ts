import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { ConfigError } from '../env.ts';

/** What an error report says besides the error: never a body, an address or a path as sent. */
export interface ErrorContext {
  /** Where it was met: a request, a line logged outside any request (a job, the write buffer), or the process. */
  source: 'request' | 'log' | 'uncaughtException' | 'unhandledRejection';
  /** The log line's message (for `request`: the first error's line, or the answer's status). */
  message: string;
  requestId?: string;
  method?: string;
  /** The route template (`/v1/sites/{id}`). */
  route?: string;
  face?: string;
  operations?: string[];
  status?: number;
}

/** The module ERROR_HOOK names: a `report(error, context)` export (docs/operations/observability.md). */
export interface ErrorHook {
  report(error: Error, context: ErrorContext): unknown;
}

const isPath = (spec: string) => /^(\.{1,2}[\\/]|[\\/]|[A-Za-z]:[\\/])/.test(spec) || /\.(c|m)?[jt]s$/.test(spec);

/**
 * Loads the error-reporting hook at start-up: a file path (relative to the working directory) or a package
 * name. A module that cannot be loaded, or exports no `report` function, stops the start with one line.
 */
export async function loadErrorHook(spec: string | undefined, cwd = process.cwd()): Promise<ErrorHook | undefined> {
  if (!spec) return undefined;
  const target = isPath(spec) ? pathToFileURL(path.resolve(cwd, spec)).href : spec;
  let loaded: { report?: unknown; default?: { report?: unknown } };
  try {
    loaded = await import(target);
  } catch (err) {
    // A refusal of the settings (one line, no stack: start-refusals.ts), as every other setting's.
    throw new ConfigError('Invalid configuration:', [
      `ERROR_HOOK: ${spec} could not be loaded (${err instanceof Error ? err.message : String(err)})`,
    ]);
  }
  const report = loaded.report ?? loaded.default?.report;
  if (typeof report !== 'function') {
    throw new ConfigError('Invalid configuration:', [`ERROR_HOOK: ${spec} exports no report(error, context) function`]);
  }
  return { report: report as ErrorHook['report'] };
}
