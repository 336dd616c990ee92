import assert from 'node:assert/strict';
import { test } from 'node:test';
import { PlanSolver } from '../src/solver.js';
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
