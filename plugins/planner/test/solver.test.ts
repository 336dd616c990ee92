import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { IDLE_MS, PlanSolver } from '../src/solver.js';
import type { PlanRequest } from '../src/planning.js';
import { nightAndEvening, planRequest } from './fixtures.js';

const start = Date.UTC(2026, 2, 10);
const request = (prices: PlanRequest['prices']) => planRequest(prices, start);
const prices = nightAndEvening(start);

function deadline<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`waited ${ms} ms for ${what}`)), ms))),
  ]).finally(() => clearTimeout(timer));
}

test('plans in a process that ends once idle, giving the solver memory back, and starts again for the next plan', async () => {
  let releases = 0;
  let released = () => {};
  const solver = new PlanSolver(50, () => {
    releases++;
    released();
  });
  const first = await solver.plan(request(prices));
  assert.equal(first.actions.length, 96, 'the plan made in the process covers the known prices');
  assert.ok(
    first.actions.some((a) => a.mode === 'charge'),
    'charges in the cheap night',
  );
  assert.equal(solver.loaded, true, 'the process stays while plans may follow');
  await deadline(new Promise<void>((resolve) => (released = resolve)), 10_000, 'the idle solver process to end');
  assert.equal(solver.loaded, false, 'the idle process has ended');
  assert.equal(releases, 1);
  const again = await solver.plan(request(prices));
  assert.deepEqual(again.actions, first.actions, 'a new process makes the same plan');
  await solver.close();
  assert.equal(solver.loaded, false, 'close ends the process');
  assert.equal(releases, 2);
});

test('a plan the solver cannot make is refused with its reason, and the process still answers', async () => {
  const solver = new PlanSolver();
  await assert.rejects(solver.plan(request([])), /no (slots|prices)/i);
  const plan = await solver.plan(request(prices));
  assert.equal(plan.actions.length, 96);
  await solver.close();
});

/** The processes this one has started and that still run. */
function children(): number[] {
  const pids: number[] = [];
  for (const task of readdirSync('/proc/self/task'))
    for (const pid of readFileSync(`/proc/self/task/${task}/children`, 'utf8').trim().split(/\s+/))
      if (pid) pids.push(Number(pid));
  return pids;
}

test('stays warm across the quarter-hour cadence: the next plans are made by the same process', async () => {
  assert.ok(IDLE_MS > 15 * 60_000, `the solver is kept longer (${IDLE_MS} ms) than plans are apart`);
  const solver = new PlanSolver();
  const before = new Set(children());
  await solver.plan(request(prices));
  const started = children().filter((pid) => !before.has(pid));
  assert.equal(started.length, 1, 'one solver process');
  const cpuAfterFirst = solver.ownCpuMs;
  assert.ok(cpuAfterFirst > 0, 'the process says the CPU it used');
  for (let k = 0; k < 3; k++) {
    // Time passes between plans (a quarter hour at a site), more than a released solver would wait.
    await new Promise((resolve) => setTimeout(resolve, 50));
    await solver.plan(request(prices));
  }
  assert.deepEqual(
    children().filter((pid) => !before.has(pid)),
    started,
    'the same process made every plan',
  );
  assert.ok(solver.ownCpuMs >= cpuAfterFirst, 'its CPU only grows: it is the same process');
  await solver.close();
  assert.deepEqual(
    children().filter((pid) => !before.has(pid)),
    [],
    'close ends it',
  );
});

test('as a worker thread (the benchmark compares it) it makes the same plan', async () => {
  const inProcess = new PlanSolver();
  const inThread = new PlanSolver(IDLE_MS, undefined, { host: 'thread' });
  const [a, b] = [await inProcess.plan(request(prices)), await inThread.plan(request(prices))];
  assert.deepEqual(b.actions, a.actions);
  await Promise.all([inProcess.close(), inThread.close()]);
  assert.equal(inThread.loaded, false);
});
