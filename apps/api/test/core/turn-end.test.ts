import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { endAtTurnEnd, sendAtTurnEnd } from '../../src/core/http/turn-end.ts';
import { currentRequest, newRequestScope, runInRequest } from '../../src/core/observe/request-scope.ts';

describe('answers written at the end of the turn', () => {
  const nextTurn = () => new Promise((r) => setImmediate(r));

  it('writes every answer of a turn after the turn, in order, each once', async () => {
    const written: string[] = [];
    const send = sendAtTurnEnd((e) => {
      throw e;
    });
    for (const name of ['a', 'b', 'c']) send({ send: () => written.push(name) });
    expect(written).toEqual([]);
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c']);
    send({ send: () => written.push('d') });
    await nextTurn();
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reports an answer that cannot be written and still writes the others', async () => {
    const written: string[] = [];
    const failures: unknown[] = [];
    const send = sendAtTurnEnd((e) => failures.push(e));
    send({ send: () => written.push('first') });
    send({
      send: () => {
        throw new Error('socket gone');
      },
    });
    send({ send: () => written.push('third') });
    await nextTurn();
    expect(written).toEqual(['first', 'third']);
    expect(failures.map((e) => (e as Error).message)).toEqual(['socket gone']);
  });

  it('runs work handed to after() once the answers of its turn are written, even when it came first', async () => {
    const order: string[] = [];
    const failures: unknown[] = [];
    const send = sendAtTurnEnd((e) => failures.push(e));
    send.after(() => order.push('work 1'));
    send({ send: () => order.push('answer 1') });
    send.after(() => {
      throw new Error('work failed');
    });
    send({ send: () => order.push('answer 2') });
    expect(order).toEqual([]);
    await nextTurn();
    expect(order).toEqual(['answer 1', 'answer 2', 'work 1']);
    expect(failures.map((e) => (e as Error).message)).toEqual(['work failed']);
    // With no answer due, the work still runs at the end of its turn.
    send.after(() => order.push('work 2'));
    await nextTurn();
    expect(order.at(-1)).toBe('work 2');
  });

  it("runs each work in the scope of the request it came with (its later steps too), never the turn's first", async () => {
    const seen: string[] = [];
    const send = sendAtTurnEnd((e) => {
      throw e;
    });
    const work = (name: string) => async () => {
      seen.push(`${name} ${currentRequest()?.id ?? 'none'}`);
      await Promise.resolve();
      seen.push(`${name} later ${currentRequest()?.id ?? 'none'}`);
    };
    runInRequest(newRequestScope('POST', 'first-request'), () => send.after(work('a')));
    runInRequest(newRequestScope('POST', 'second-request'), () => send.after(work('b')));
    send.after(work('c'));
    await nextTurn();
    await nextTurn();
    expect(seen).toEqual([
      'a first-request',
      'b second-request',
      'c none',
      'a later first-request',
      'b later second-request',
      'c later none',
    ]);
  });
});

describe('whole answers at the end of the turn, streams as they come', () => {
  const nextTurn = () => new Promise((r) => setImmediate(r));

  /** A real server whose answers go through `endAtTurnEnd`, one route whole and one streamed. */
  async function server() {
    const endedAtOnce: boolean[] = [];
    const send = sendAtTurnEnd((e) => {
      throw e;
    });
    const srv = createServer((req, res) => {
      endAtTurnEnd(res, send);
      if (req.url === '/whole') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ whole: true }));
        // Nothing is on its way yet: the answer waits for the end of this turn.
        endedAtOnce.push(res.writableEnded);
        return;
      }
      if (req.url === '/twice') {
        res.end('the first end');
        res.end('a second end');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first ');
      setTimeout(() => res.end('last'), 20);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    return { srv, endedAtOnce, url: `http://127.0.0.1:${(srv.address() as AddressInfo).port}` };
  }

  it('sends a whole answer once the turn ends, and a streamed one chunk by chunk, both complete', async () => {
    const { srv, url, endedAtOnce } = await server();
    try {
      const whole = await fetch(`${url}/whole`);
      expect(whole.status).toBe(200);
      expect(await whole.json()).toEqual({ whole: true });
      expect(endedAtOnce).toEqual([false]);
      const streamed = await fetch(`${url}/streamed`);
      expect(await streamed.text()).toBe('first last');
      expect(await (await fetch(`${url}/twice`)).text()).toBe('the first end');
    } finally {
      srv.close();
    }
  });

  it('ends a response that has written before at once', async () => {
    const calls: string[] = [];
    const res = {
      write: () => calls.push('write') > 0,
      end: () => calls.push('end'),
    } as unknown as ServerResponse;
    endAtTurnEnd(
      res,
      sendAtTurnEnd(() => {}),
    );
    res.write('chunk');
    res.end();
    expect(calls).toEqual(['write', 'end']);
    const whole = { write: () => true, end: () => calls.push('whole end') } as unknown as ServerResponse;
    endAtTurnEnd(
      whole,
      sendAtTurnEnd(() => {}),
    );
    whole.end('all');
    expect(calls).toEqual(['write', 'end']);
    await nextTurn();
    expect(calls).toEqual(['write', 'end', 'whole end']);
  });
});
