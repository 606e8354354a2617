// The rollup thread ends once it has had nothing to do for its idle time (its isolate otherwise keeps
// the heap of its busiest counting, large after a backlog of busy days: docs/performance/history.md,
// "What the flag costs: the rollup thread's idle heap"), never while a task runs, and the next rollup
// starts a new one that counts the same rows.
import { readdirSync, readFileSync } from 'node:fs';
import { createOrm, type Orm } from '@us/db';
import { afterAll, beforeAll, describe, expect, inject, it, vi } from 'vitest';
import type { SiteDay } from '../../../src/analytics/rollup/pending-days.ts';
import { rollupSiteDay, siteDaySource } from '../../../src/analytics/rollup/rollup.ts';
import { liveRollupThreads, rollupThreadIdle, stopRollupThreads } from '../../../src/analytics/rollup/rollup-thread.ts';
import { generatedSiteDay, normalRows, storedRollupRows } from '../../support/rollup-day.ts';
import { sqlRollupRows } from '../../support/rollup-sql.ts';

const DEFAULT_IDLE_MS = rollupThreadIdle.ms;
let orm: Orm;
let first: SiteDay;
let second: SiteDay;

beforeAll(async () => {
  orm = await createOrm(inject('databaseUrl'), { poolMax: 6 });
  first = await generatedSiteDay(orm, 'Idle thread one', 'UTC', 3000);
  second = await generatedSiteDay(orm, 'Idle thread two', 'Europe/Berlin', 3000);
  await stopRollupThreads();
});

afterAll(async () => {
  rollupThreadIdle.ms = DEFAULT_IDLE_MS;
  await stopRollupThreads();
  await orm?.close();
});

const expected = async (sd: SiteDay) => normalRows(await sqlRollupRows(orm, await siteDaySource(orm, sd)));
const stored = (sd: SiteDay) => storedRollupRows(orm, sd);

// Each test counts generated days of 3,000 rows in a new thread, twice: a loaded machine takes longer than the default 30 s.
describe('the rollup thread', { timeout: 90_000 }, () => {
  it('ends after its idle time without a task, and the next rollup starts a new one', async () => {
    rollupThreadIdle.ms = 1000;
    expect(await rollupSiteDay(orm, first)).not.toBeNull();
    expect(liveRollupThreads()).toBe(1);
    await vi.waitFor(() => expect(liveRollupThreads()).toBe(0), { timeout: 10_000, interval: 50 });

    expect(await rollupSiteDay(orm, first)).not.toBeNull();
    expect(await stored(first)).toEqual(await expected(first));
  });

  it('lives on while a task runs, however short its idle time', async () => {
    // The first answer leaves the second task running: its thread must not end under it.
    rollupThreadIdle.ms = 1;
    const [a, b] = await Promise.all([rollupSiteDay(orm, first), rollupSiteDay(orm, second)]);
    expect(a).not.toBeNull();
    expect(b).not.toBeNull();
    expect(await stored(first)).toEqual(await expected(first));
    expect(await stored(second)).toEqual(await expected(second));
  });

  it('counts below the priority of the event loop, so a busy machine runs the loop first (Linux)', async () => {
    rollupThreadIdle.ms = 60_000;
    expect(await rollupSiteDay(orm, first)).not.toBeNull();
    expect(liveRollupThreads()).toBe(1);
    // Each thread of this process with its nice value (field 19 of /proc/<pid>/task/<tid>/stat).
    const nice = (task: string) => {
      const stat = readFileSync(`/proc/self/task/${task}/stat`, 'utf8');
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
    };
    const tasks = readdirSync('/proc/self/task');
    expect(nice(String(process.pid))).toBe(0);
    expect(tasks.map(nice)).toContain(10);
    await stopRollupThreads();
  });

  it('lives on across tasks that follow each other within its idle time', async () => {
    // Each task outlasts the idle time: a countdown left running from the previous answer would end the
    // thread under the next task.
    rollupThreadIdle.ms = 60;
    for (const sd of [first, second, first, second]) expect(await rollupSiteDay(orm, sd)).not.toBeNull();
    expect(await stored(second)).toEqual(await expected(second));
  });
});
