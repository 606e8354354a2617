import { describe, expect, it } from 'vitest';
import { QUERY_RETRY } from '../src/data/retry.ts';
import { ProblemError } from '../src/problem.ts';

const problem = (status: number) => new ProblemError({ title: 'x', status });

describe("the dashboard's queries asking again", () => {
  // The defect: a funnel or goal card over 90 days of a large site showed "being prepared (ask again in a few
  // seconds)" and never asked again.
  it('asks again for results being prepared (503), every 5 seconds for two minutes', () => {
    expect(QUERY_RETRY.retry(0, problem(503))).toBe(true);
    expect(QUERY_RETRY.retry(23, problem(503))).toBe(true);
    expect(QUERY_RETRY.retry(24, problem(503))).toBe(false);
    expect(QUERY_RETRY.retryDelay(3, problem(503))).toBe(5000);
  });

  it('waits its turn on a 429 with a growing pause, and shows any other failure at once', () => {
    expect(QUERY_RETRY.retry(4, problem(429))).toBe(true);
    expect(QUERY_RETRY.retry(5, problem(429))).toBe(false);
    expect(QUERY_RETRY.retryDelay(0, problem(429))).toBe(500);
    expect(QUERY_RETRY.retryDelay(5, problem(429))).toBe(4000);
    for (const status of [400, 401, 403, 404, 500, 0]) expect(QUERY_RETRY.retry(0, problem(status))).toBe(false);
  });
});
