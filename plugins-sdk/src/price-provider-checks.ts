/**
 * Checks every price provider's test makes the same way, each fed with the provider's own
 * fake answers and expected figures: what the provider declares and schedules
 * ({@link assertProviderDeclared}), the two days a year whose length differs
 * ({@link assertDaylightSavingDays}), tomorrow's prices published after the auction
 * ({@link assertTomorrowFollows}) and answers the provider cannot read ({@link assertMalformedAnswers}).
 *
 * @example
 * import { assertProviderDeclared } from '@heliograph/plugins-sdk/testing';
 *
 * test('declares itself and schedules a regular refresh and one after the auction', async () => {
 *   const host = await start(berlin('2026-11-20T10:00'));
 *   assertProviderDeclared(host, {
 *     provider: 'ENTSO-E', currency: 'EUR', scheduleType: 'pricing', refreshMs: 3_600_000, dayAhead: true,
 *   });
 * });
 *
 * @packageDocumentation
 */
import assert from 'node:assert/strict';
import type { PriceProviderDeclaration, PriceSlot } from './index.js';
import { assertPriceSlots, type ExpectedSlots } from './price-provider-contract.js';

/**
 * What the checks use of a test host (`TestHost` from `@heliograph/plugins-sdk/testing`).
 *
 * @example
 * const host: PriceProviderHost = await startTestHost({ plugin, config: { baseUrl: fake.url } });
 */
export interface PriceProviderHost {
  runJob(name: string): Promise<void>;
  setTime(ms: number): void;
  readonly logs: readonly string[];
  readonly prices: {
    readonly provider?: PriceProviderDeclaration;
    readonly schedules: ReadonlyArray<{ import: PriceSlot[]; export?: PriceSlot[] }>;
  };
  readonly jobs: ReadonlyMap<string, { kind: 'every' | 'daily'; intervalMs?: number; times?: string[] }>;
}

/**
 * What {@link assertProviderDeclared} expects of a provider.
 *
 * @example
 * const expected: ExpectedDeclaration = {
 *   provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing', refreshMs: 3_600_000,
 *   dayAhead: { from: '13:00', to: '15:00' },
 * };
 */
export interface ExpectedDeclaration {
  /** The declaration's `provider`, as the grid API shows it. */
  provider: string;
  currency: string;
  scheduleType: 'pricing' | 'import_export_pricing';
  /** The interval of the `refresh` job, in ms. */
  refreshMs: number;
  /**
   * The `day-ahead` job: `true` for one run daily, or also each of its local times (`HH:MM`) at
   * or after `from` and at or before `to`. Leave out for a provider without one.
   */
  dayAhead?: true | { from?: string; to?: string };
}

/**
 * Checks what a provider declared (exactly `provider`, `currency` and `scheduleType`) and the
 * jobs it scheduled: `refresh` every `refreshMs`, and where expected a daily `day-ahead`
 * within its hours.
 *
 * @example
 * assertProviderDeclared(host, {
 *   provider: 'Octopus Energy', currency: 'GBP', scheduleType: 'import_export_pricing',
 *   refreshMs: 3_600_000, dayAhead: { from: '16:00' },
 * });
 */
export function assertProviderDeclared(host: PriceProviderHost, expected: ExpectedDeclaration): void {
  const { provider, currency, scheduleType, refreshMs, dayAhead } = expected;
  assert.deepEqual(host.prices.provider, { provider, currency, scheduleType });
  assert.equal(host.jobs.get('refresh')?.intervalMs, refreshMs);
  if (!dayAhead) return;
  const job = host.jobs.get('day-ahead');
  assert.equal(job?.kind, 'daily');
  if (dayAhead === true) return;
  const { from = '00:00', to = '23:59' } = dayAhead;
  assert.ok(
    job?.times?.every((time) => time >= from && time <= to),
    `the day-ahead times ${JSON.stringify(job?.times)} lie within ${from}-${to}`,
  );
}

/**
 * One day of {@link assertDaylightSavingDays}.
 *
 * @example
 * const autumn: DaylightSavingDay = {
 *   prepare: () => (fake.market = market({ publishedThrough: '2026-10-26' })),
 *   at: berlin('2026-10-25T15:00'), end: berlin('2026-10-26T00:00'), count: 100,
 *   slots: { slotMs: 900_000, price: (start) => price(start) / 1000 },
 * };
 */
export interface DaylightSavingDay {
  /** Sets the fake up for the day (what is published by then), before the host starts. */
  prepare?: () => void;
  /** When a host starts and runs its `refresh` job, Unix ms: a time on the day. */
  at: number;
  /** The local midnight that ends the day, Unix ms. */
  end: number;
  /** How many slots start on the day: with quarter hours, 100 on the autumn change and 92 in spring. */
  count: number;
  /** The series counted and checked; default `import`. */
  series?: 'import' | 'export';
  /** What every slot of the series published must be ({@link assertPriceSlots}). */
  slots?: ExpectedSlots;
}

/**
 * Checks the two days a year whose local length is not 24 hours: for each, a new host at
 * `at` runs its `refresh` job, and its first schedule's series has `count` slots before
 * the local midnight `end`, the last of which ends at that midnight.
 *
 * @example
 * await assertDaylightSavingDays({
 *   start,
 *   autumn: { at: berlin('2026-10-25T15:00'), end: berlin('2026-10-26T00:00'), count: 100 },
 *   spring: { at: berlin('2026-03-29T15:00'), end: berlin('2026-03-30T00:00'), count: 92 },
 * });
 */
export async function assertDaylightSavingDays(options: {
  start: (now: number) => Promise<PriceProviderHost>;
  autumn: DaylightSavingDay;
  spring: DaylightSavingDay;
}): Promise<void> {
  for (const [season, day] of [
    ['autumn', options.autumn],
    ['spring', options.spring],
  ] as const) {
    day.prepare?.();
    const host = await options.start(day.at);
    await host.runJob('refresh');
    const slots = host.prices.schedules[0]?.[day.series ?? 'import'];
    assert.ok(slots, `the ${season} day's refresh publishes ${day.series ?? 'import'} prices`);
    const today = slots.filter((slot) => slot.start < day.end);
    assert.equal(today.length, day.count, `the number of slots on the ${season} day`);
    assert.equal(today.at(-1)?.end, day.end, `the ${season} day's last slot ends at local midnight`);
    if (day.slots) assertPriceSlots(slots, day.slots);
  }
}

/**
 * Options of {@link assertTomorrowFollows}.
 *
 * @example
 * const options: TomorrowFollows = {
 *   start, unpublished: () => (fake.market = market({ publishedThrough: '2026-11-20' })),
 *   at: local('2026-11-20T09:00'), today: 96, log: 'delivery day 2026-11-21 is not published yet',
 *   published: () => (fake.market = market()), auction: local('2026-11-20T13:00'), both: 192,
 * };
 */
export interface TomorrowFollows {
  start: (now: number) => Promise<PriceProviderHost>;
  /** Makes the fake publish today only. */
  unpublished: () => void;
  /** The morning at which the host starts, Unix ms. */
  at: number;
  /** How many import slots today has. */
  today: number;
  /** What a log line says about tomorrow's missing prices. */
  log: string;
  /** Makes the fake publish tomorrow too. */
  published: () => void;
  /** When the `day-ahead` job runs, after the auction, Unix ms. */
  auction: number;
  /** How many import slots today and tomorrow have. */
  both: number;
}

/**
 * Checks that prices not yet published for tomorrow are no failure: the `refresh` job
 * publishes today's prices and logs `log`; once the fake publishes tomorrow's, the
 * `day-ahead` job after the auction publishes a second schedule with both days.
 *
 * @example
 * await assertTomorrowFollows({
 *   start, unpublished: () => (fake.account = account(0, { tomorrowPublished: false })),
 *   at: berlin('2026-11-20T09:00'), today: 96, log: 'tomorrow is not published yet',
 *   published: () => (fake.account = account(berlin('2026-11-20T13:10'))), auction: berlin('2026-11-20T13:10'), both: 192,
 * });
 */
export async function assertTomorrowFollows(options: TomorrowFollows): Promise<void> {
  options.unpublished();
  const host = await options.start(options.at);
  await host.runJob('refresh');
  assert.equal(host.prices.schedules.length, 1);
  assert.equal(host.prices.schedules[0]!.import.length, options.today);
  assert.ok(
    host.logs.some((line) => line.includes(options.log)),
    `a log line says ${JSON.stringify(options.log)}`,
  );

  options.published();
  host.setTime(options.auction);
  await host.runJob('day-ahead');
  assert.equal(host.prices.schedules.length, 2);
  assert.equal(host.prices.schedules[1]!.import.length, options.both);
}

/**
 * Checks answers a provider cannot read: after each `corrupt()`, the `refresh` job fails
 * with an error that matches its pattern; no schedule is published.
 *
 * @example
 * await assertMalformedAnswers(host, [
 *   [() => (fake.market = market({ corrupt: 'wrong-type' })), /aWATTar answer: data\[3\]\.marketprice: expected number/],
 *   [() => (fake.market = market({ corrupt: 'not-json' })), /aWATTar answer is not JSON/],
 * ]);
 */
export async function assertMalformedAnswers(
  host: PriceProviderHost,
  answers: ReadonlyArray<readonly [corrupt: () => void, error: RegExp]>,
): Promise<void> {
  for (const [corrupt, error] of answers) {
    corrupt();
    await assert.rejects(host.runJob('refresh'), error);
  }
  assert.equal(host.prices.schedules.length, 0);
}
