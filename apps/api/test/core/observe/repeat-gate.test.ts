// Lines and error reports that strangers' requests repeat during an outage: one per kind every 10 s, then how many
// more there were. Each wrote one per request (thousands a second, when the node was already short of everything).
import { describe, expect, it, vi } from 'vitest';
import { logFailure } from '../../../src/core/error-map.ts';
import { AppError } from '../../../src/core/errors.ts';
import type { Logger } from '../../../src/core/logger.ts';
import { ErrorReports } from '../../../src/core/observe/error-reports.ts';
import { heldNote, repeatGate } from '../../../src/core/observe/repeat-gate.ts';
import { newRequestScope } from '../../../src/core/observe/request-scope.ts';

describe('repeat gate', () => {
  it('writes one line per kind and window, then says how many it held back', () => {
    const gate = repeatGate(1000);
    expect(gate('a', 0)).toEqual({ write: true, held: 0 });
    for (let i = 0; i < 500; i++) expect(gate('a', 10 + i).write).toBe(false);
    expect(gate('b', 20)).toEqual({ write: true, held: 0 });
    expect(gate('a', 1000)).toEqual({ write: true, held: 500 });
    expect(heldNote(500, 1000)).toBe(' (and 500 more like it in the last 1 s)');
    expect(heldNote(0)).toBe('');
  });

  it('an outage met by 1,000 requests is one warning, not 1,000', () => {
    const logger = { debug: vi.fn(), info: vi.fn(), warn: vi.fn(), error: vi.fn() } satisfies Logger;
    const down = new AppError(503, 'The collector is storing a backlog: try again shortly', {
      cause: new Error('buffer full'),
      retryAfter: 5,
    });
    for (let i = 0; i < 1000; i++) logFailure(logger, 'POST /collect (repeat-gate test)', down);
    expect(logger.warn).toHaveBeenCalledTimes(1);
    expect(logger.warn.mock.calls[0]?.[0]).toContain('backlog');
  });

  it('reports 5xx answers with no error behind them once per route and status every window', async () => {
    const report = vi.fn();
    const reports = new ErrorReports({ report });
    for (let i = 0; i < 200; i++) {
      const scope = newRequestScope('POST', undefined);
      scope.face = 'collect';
      scope.route = '/collect';
      reports.requestEnded(scope, 503);
    }
    await vi.waitFor(() => expect(report).toHaveBeenCalledTimes(1));
    // Our own errors are all reported, each.
    for (let i = 0; i < 3; i++) {
      const scope = newRequestScope('GET', undefined);
      scope.route = '/v1/sites/{id}';
      scope.errors.push({ err: new Error(`bug ${i}`), msg: 'failed' });
      reports.requestEnded(scope, 500);
    }
    await vi.waitFor(() => expect(report).toHaveBeenCalledTimes(4));
  });
});
