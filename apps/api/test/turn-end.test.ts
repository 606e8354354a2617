import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { sendAtTurnEnd, turnEndResponses } from '../src/http/turn-end.ts';

describe('answers written at the end of the turn', () => {
  const nextTurn = () => new Promise((r) => setImmediate(r));

  it('writes every answer of a turn after the turn, in order, each once', async () => {
    const written: string[] = [];
    const send = sendAtTurnEnd((e) => {
      throw e;
    });
    for (const name of ['a', 'b', 'c']) send({ endNow: () => written.push(name) });
    expect(written).toEqual([]);
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c']);
    send({ endNow: () => written.push('d') });
    await nextTurn();
    await nextTurn();
    expect(written).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reports an answer that cannot be written and still writes the others', async () => {
    const written: string[] = [];
    const failures: unknown[] = [];
    const send = sendAtTurnEnd((e) => failures.push(e));
    send({ endNow: () => written.push('first') });
    send({
      endNow: () => {
        throw new Error('socket gone');
      },
    });
    send({ endNow: () => written.push('third') });
    await nextTurn();
    expect(written).toEqual(['first', 'third']);
    expect(failures.map((e) => (e as Error).message)).toEqual(['socket gone']);
  });
});

describe('the server’s responses: whole answers at the end of the turn, streams as they come', () => {
  it('sends a whole answer once the turn ends (the first end of it) and a streamed one as it comes, both complete', async () => {
    const endedAtOnce: Record<string, boolean> = {};
    const send = sendAtTurnEnd((e) => {
      throw e;
    });
    const srv = createServer({ ServerResponse: turnEndResponses(send) }, (req, res) => {
      if (req.url === '/whole') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ whole: true }));
        // Nothing is on its way yet: the answer waits for the end of this turn.
        endedAtOnce.whole = res.writableEnded;
        return;
      }
      if (req.url === '/twice') {
        res.end('the first end');
        res.end('a second end');
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('first ');
      setTimeout(() => {
        res.end('last');
        endedAtOnce.streamed = res.writableEnded;
      }, 20);
    });
    await new Promise<void>((r) => srv.listen(0, '127.0.0.1', () => r()));
    const url = `http://127.0.0.1:${(srv.address() as AddressInfo).port}`;
    try {
      const whole = await fetch(`${url}/whole`);
      expect(whole.status).toBe(200);
      expect(await whole.json()).toEqual({ whole: true });
      const streamed = await fetch(`${url}/streamed`);
      expect(await streamed.text()).toBe('first last');
      expect(await (await fetch(`${url}/twice`)).text()).toBe('the first end');
      expect(endedAtOnce).toEqual({ whole: false, streamed: true });
    } finally {
      srv.close();
    }
  });
});
