import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Deps } from '../../core/deps.ts';
import { AppError } from '../../core/errors.ts';
import { sendProblem } from '../../core/http/problem-response.ts';
import type { SendAtTurnEnd } from '../../core/http/turn-end.ts';
import { label } from '../../core/observe/request-scope.ts';
import { type CollectExchange, LaneExchange } from './exchange.ts';

/** The paths the lane answers; every other request (the gate's routes included) goes on to Koa. */
const LANE_PATHS = new Set(['/collect', '/collect/requests']);

/**
 * The collect lane: page reports and edge batches answered straight from Node's http server, before Koa. They are
 * the service's busiest public routes and need nothing of Koa's (no middleware, no sessions): its context,
 * delegation and response handling were a sizeable share of a page report's server time
 * (docs/performance/history.md, "The collect lane and fewer allocations"). The answers are the same as through Koa
 * (`LaneExchange.send`).
 * Answers are written with the server's others at the end of each event-loop turn (`send`: `turn-end.ts`).
 * A draining node leaves them to Koa, which answers 503 to every new request.
 * Answers whether it took the request.
 */
export function collectLane(
  deps: Pick<Deps, 'env' | 'lifecycle' | 'logger'>,
  answer: (x: CollectExchange) => Promise<void>,
  send: SendAtTurnEnd,
): (req: IncomingMessage, res: ServerResponse) => boolean {
  const proxy = { trust: deps.env.TRUST_PROXY, hops: deps.env.TRUST_PROXY_HOPS };
  return (req, res) => {
    if (deps.lifecycle.draining) return false;
    const url = req.url ?? '';
    const query = url.indexOf('?');
    const path = query < 0 ? url : url.slice(0, query);
    if (!LANE_PATHS.has(path)) return false;
    label('collect', path, path === '/collect' ? 'collect' : 'collect.requests');
    const x = new LaneExchange(req, res, path, proxy);
    answer(x).then(
      () => send(x),
      (err) => {
        // `answer` turns every failure into a problem answer itself: this is the last resort.
        deps.logger.error(`${x.method} ${path} failed`, err);
        sendProblem(x, new AppError(500, 'Something went wrong on our side: send the report again in a moment'));
        send(x);
      },
    );
    return true;
  };
}
