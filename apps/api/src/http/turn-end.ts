import { ServerResponse } from 'node:http';

/** An answer ready to be written. */
export interface DueAnswer {
  endNow(): void;
}

/** Queues an answer to be written at the end of the event loop's turn (see `sendAtTurnEnd`). */
export type SendAtTurnEnd = (answer: DueAnswer) => void;

/**
 * Writes ready answers together at the end of the event loop's turn (`setImmediate`: after every request
 * that arrived with this turn was read and answered), instead of each the moment it is ready. Under load
 * many answers are ready in one turn; written back to back, a client that was waiting is woken once for
 * all of them and reads them in one turn of its own, rather than being woken (and going back to sleep)
 * between each. Measured with the bench's client (README "Answers at the end of the turn"): the API's CPU per
 * page report fell from 86–111 to 59–74 µs and the client's from 53–71 to 38–50 µs. An answer waits at
 * most for the rest of its turn. An answer that throws is reported to `onError`; the others are written.
 */
export function sendAtTurnEnd(onError: (err: unknown) => void): SendAtTurnEnd {
  let due: DueAnswer[] = [];
  const writeAll = () => {
    const now = due;
    due = [];
    for (const answer of now) {
      try {
        answer.endNow();
      } catch (err) {
        onError(err);
      }
    }
  };
  return (answer) => {
    if (due.push(answer) === 1) setImmediate(writeAll);
  };
}

/**
 * The server's responses (`createServer({ ServerResponse })`): a whole answer given to `end` (status,
 * headers and body at once, as the collect lane, Koa and the MCP transport answer) waits for the end of
 * the turn with the others. An answer that writes before it ends (a stream: a download, an event stream)
 * is written as it comes, its end included. One class per server, over that server's queue. (No closure
 * per answer: the TypeScript loader would name each one as it is made; see `http/body.ts`.)
 */
export function turnEndResponses(send: SendAtTurnEnd): typeof ServerResponse {
  class TurnEndResponse extends ServerResponse implements DueAnswer {
    private streamed = false;
    private endArgs: unknown[] | undefined;

    // biome-ignore lint/suspicious/noExplicitAny: Node's overloads of write and end, passed on as they came.
    override write(...args: any[]): boolean {
      this.streamed = true;
      return (super.write as (...a: unknown[]) => boolean)(...args);
    }

    // biome-ignore lint/suspicious/noExplicitAny: as above.
    override end(...args: any[]): this {
      if (this.streamed) return (super.end as (...a: unknown[]) => this)(...args);
      if (this.endArgs) return this; // ended already: the first end's answer is the one written
      this.endArgs = args;
      send(this);
      return this;
    }

    endNow() {
      (super.end as (...a: unknown[]) => this)(...(this.endArgs ?? []));
    }
  }
  return TurnEndResponse as typeof ServerResponse;
}
