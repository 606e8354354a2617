import type { ServerResponse } from 'node:http';
import { currentRequest, outsideRequests, type RequestScope, runInRequest } from '../observe/request-scope.ts';

/** Anything with an answer ready to write. */
export interface Sendable {
  send(): void;
}

/** Queues an answer to be written at the end of the event loop's turn (see `sendAtTurnEnd`). */
export interface SendAtTurnEnd {
  (answer: Sendable): void;
  /**
   * Runs `work` right after the answers due this turn are written: work that comes with a request but
   * that no answer waits for (a page report's rows, once its 202 is out: see the collect handler).
   */
  after(work: () => void): void;
}

/**
 * Writes ready answers together at the end of the event loop's turn (`setImmediate`: after every request that
 * arrived with this turn was read and answered), instead of each the moment it is ready. Under load many answers
 * are ready in one turn; written back to back, a client that was waiting is woken once for all of them and reads
 * them in one turn of its own, rather than being woken (and going back to sleep) between each. Both the API's and
 * the bench client's CPU per page report fell (docs/performance/history.md, "Answers at the end of the turn"). An
 * answer waits at most for the rest of its turn. A `send` (or `after` work) that throws is reported to `onError`;
 * the others run.
 */
export function sendAtTurnEnd(onError: (err: unknown) => void): SendAtTurnEnd {
  let due: Sendable[] = [];
  let then: (() => void)[] = [];
  /** The request each of `then` came with (`after`), by index. */
  let thenScopes: (RequestScope | undefined)[] = [];
  let scheduled = false;
  const writeAll = () => {
    scheduled = false;
    const now = due;
    const later = then;
    const scopes = thenScopes;
    due = [];
    then = [];
    thenScopes = [];
    for (const answer of now) {
      try {
        answer.send();
      } catch (err) {
        onError(err);
      }
    }
    for (let i = 0; i < later.length; i++) {
      const work = later[i] as () => void;
      const scope = scopes[i];
      try {
        if (scope) runInRequest(scope, work);
        else work();
      } catch (err) {
        onError(err);
      }
    }
  };
  const schedule = () => {
    if (scheduled) return;
    scheduled = true;
    // Outside the request that happened to come first: each work enters its own, work of none runs in none.
    outsideRequests(() => setImmediate(writeAll));
  };
  const send = ((answer: Sendable) => {
    due.push(answer);
    schedule();
  }) as SendAtTurnEnd;
  send.after = (work) => {
    // In its own request's scope (its log lines carry that request's id), not the turn's first: the scope is
    // entered again when the work runs. (A function bound with AsyncLocalStorage.bind per page report made the
    // collect path's collections far longer: docs/performance/history.md, "The request scope's cost to collect".)
    then.push(work);
    thenScopes.push(currentRequest());
    schedule();
  };
  return send;
}

/**
 * Makes a whole answer given to `res.end` (status, headers and body at once, as Koa and the MCP transport
 * answer) wait for the end of the turn with the others. An answer that writes before it ends (a stream: a
 * download, an event stream) is written as it comes, its end included. The collect lane queues its own
 * answers instead: its responses stay Node's plain ones (a `ServerResponse` subclass for every answer
 * made a page report dearer: docs/performance/history.md, "Answers at the end of the turn").
 */
export function endAtTurnEnd(res: ServerResponse, send: SendAtTurnEnd): void {
  const write = res.write as (...args: unknown[]) => boolean;
  const end = res.end as (...args: unknown[]) => ServerResponse;
  let streamed = false;
  let ended = false;
  res.write = ((...args: unknown[]) => {
    streamed = true;
    return write.apply(res, args);
  }) as ServerResponse['write'];
  res.end = ((...args: unknown[]) => {
    if (streamed) return end.apply(res, args);
    if (ended) return res; // ended already: the first end's answer is the one written
    ended = true;
    send({ send: () => end.apply(res, args) });
    return res;
  }) as ServerResponse['end'];
}
