// A small ERROR_HOOK module, as an operator's would be (docs/operations/observability.md, "Error reports"):
// it keeps every report in memory for the test that loaded it. The list lives on globalThis, so the test
// reads the same one whichever way the server imported this file.
import type { ErrorContext } from '../../src/core/observe/error-hook.ts';

export interface Reported {
  error: Error;
  context: ErrorContext;
}

const box = globalThis as { __errorHookReports?: Reported[]; __errorHookFails?: boolean };

box.__errorHookReports ??= [];
/** Every report so far. */
export const reported: Reported[] = box.__errorHookReports;

/** Makes the hook throw from now on (`false` to stop), as a broken reporting client would. */
export function failing(on: boolean): void {
  box.__errorHookFails = on;
}

export function report(error: Error, context: ErrorContext): void {
  if (box.__errorHookFails) throw new Error('the reporting service is down');
  reported.push({ error, context });
}
