/**
 * What every price provider's test checks the same way, so a new provider's test is its
 * definition and its evidence rather than a copy: the cases a failing service must pass
 * ({@link priceProviderContract}), a check of a published price series ({@link assertPriceSlots}),
 * a provider's test host options ({@link priceProviderHostOptions}) and a fake's reset ({@link resetFake}).
 *
 * @example
 * import { priceProviderContract } from '@heliograph/plugins-sdk/testing';
 *
 * for (const { name, run } of priceProviderContract({
 *   provider: 'aWATTar',
 *   answeredAs: 'text',
 *   start: (now) => start(now),
 *   at: berlin('2026-11-20T14:00'),
 *   fail: (failure) => (fake.market = market({ failure })),
 *   requests: () => fake.requests,
 * })) {
 *   test(name, run);
 * }
 *
 * @packageDocumentation
 */
import assert from 'node:assert/strict';
import type { z } from 'zod';
import type { PluginDefinition, PriceSlot } from './index.js';

/**
 * The answer a fake gives instead of prices: the shape the SDK's fakes take in their
 * `failure` field.
 *
 * @example
 * const failure: FakeFailure = { status: 503, contentType: 'text/plain', body: 'Service Unavailable' };
 */
export interface FakeFailure {
  status: number;
  contentType: string;
  body: string;
}

/**
 * Options of {@link priceProviderContract}.
 *
 * @example
 * const options: PriceProviderContractOptions = {
 *   provider: 'Octopus Energy (E-1R-AGILE-24-10-01-C)',
 *   answeredAs: 'text',
 *   start: (now) => start(now),
 *   at: london('2026-11-20T17:00'),
 *   fail: (failure) => (fake.market = market({ failure })),
 *   requests: () => fake.requests,
 * };
 */
export interface PriceProviderContractOptions {
  /** How the provider's errors name who answered: `ENTSO-E`, `Octopus Energy (E-1R-AGILE-24-10-01-C)`. */
  provider: string;
  /**
   * How the real service words a failure, so the fake's body is what the plugin would get: a
   * plain status text (`text`), an HTML page (`html`) or a JSON `{ "message": ... }` (`json`).
   */
  answeredAs: 'text' | 'html' | 'json';
  /** Starts a test host of the provider at `now`, talking to the fake. */
  start: (now: number) => Promise<ContractHost>;
  /** A time at which the first job run publishes a schedule, in Unix ms. */
  at: number;
  /** Makes the fake answer every later request with `failure` (undone by the test's reset). */
  fail: (failure: FakeFailure) => void;
  /** The fake's received requests: the contract empties it and counts the tries. */
  requests: () => unknown[];
  /** The jobs that fetch prices, each of which must fail and keep the schedule; default `refresh`, `day-ahead`. */
  jobs?: readonly string[];
}

/**
 * What the contract uses of a test host (`TestHost` from `@heliograph/plugins-sdk/testing`).
 *
 * @example
 * const host: ContractHost = await startTestHost({ plugin, config: { baseUrl: fake.url } });
 */
export interface ContractHost {
  runJob(name: string): Promise<void>;
  readonly prices: { readonly schedules: readonly unknown[] };
}

/**
 * A named case of {@link priceProviderContract}: register it with the test runner.
 *
 * @example
 * for (const { name, run } of priceProviderContract(options)) test(name, run);
 */
export interface ContractCase {
  name: string;
  run: () => Promise<void>;
}

const failures = [
  [429, 'Too Many Requests', '.*rate limit'],
  [503, 'Service Unavailable', '.*problem on its side'],
  [500, 'Internal Server Error', ''],
] as const;

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

function failureBody(answeredAs: PriceProviderContractOptions['answeredAs'], statusText: string): FakeFailure {
  if (answeredAs === 'json')
    return { status: 0, contentType: 'application/json', body: JSON.stringify({ message: statusText }) };
  if (answeredAs === 'html')
    return { status: 0, contentType: 'text/html', body: `<html><body>${statusText}</body></html>` };
  return { status: 0, contentType: 'text/plain', body: statusText };
}

/**
 * The cases every price provider passes when its service fails: for HTTP 429, 503 and 500,
 * each price job fails with an error that names the provider, the status and (429, 503) what
 * it means; a 5xx answer is tried three times, a 429 once; the schedule published before
 * stays the last one. Named `HTTP <status>: the job fails with a clear message and the last
 * schedule stays`.
 *
 * @example
 * for (const { name, run } of priceProviderContract({
 *   provider: 'Nord Pool',
 *   answeredAs: 'text',
 *   start: (now) => start(now),
 *   at: local('2026-11-20T14:00'),
 *   fail: (failure) => (fake.market = market({ failure })),
 *   requests: () => fake.requests,
 * })) {
 *   test(name, run);
 * }
 */
export function priceProviderContract(options: PriceProviderContractOptions): ContractCase[] {
  const { provider, answeredAs, start, at, fail, requests } = options;
  const [first = 'refresh', ...others] = options.jobs ?? ['refresh', 'day-ahead'];
  return failures.map(([status, statusText, meaning]) => ({
    name: `HTTP ${status}: the job fails with a clear message and the last schedule stays`,
    run: async () => {
      const pattern = new RegExp(`${escape(provider)} answered HTTP ${status} ${statusText}${meaning}`);
      const host = await start(at);
      await host.runJob(first);
      const published = host.prices.schedules[0];
      assert.ok(published, `the ${first} job at ${new Date(at).toISOString()} publishes a schedule`);
      fail({ ...failureBody(answeredAs, statusText), status });
      requests().length = 0;
      await assert.rejects(host.runJob(first), pattern);
      assert.equal(requests().length, status === 429 ? 1 : 3, 'a 5xx answer is tried three times, a 429 once');
      for (const job of others) await assert.rejects(host.runJob(job), pattern);
      assert.equal(host.prices.schedules.length, 1);
      assert.equal(host.prices.schedules.at(-1), published);
    },
  }));
}

/**
 * What {@link assertPriceSlots} expects of a price series.
 *
 * @example
 * const expected: ExpectedSlots = { slotMs: 900_000, price: (start) => price(start) / 1000, count: 192 };
 */
export interface ExpectedSlots {
  /** Every slot's length in ms. */
  slotMs: number;
  /** The price per kWh of the slot starting at `start`; checked to 1e-9. Leave out to check times only. */
  price?: (start: number) => number;
  /** How many slots there are. */
  count?: number;
  /** Where the first slot starts, Unix ms. */
  from?: number;
  /** Where the last slot ends, Unix ms. */
  to?: number;
}

/**
 * Checks a published price series: each slot `slotMs` long and starting where the one before
 * ends, its price the one expected, and where given how many slots there are and where they
 * start and end. The failure names the slot.
 *
 * @example
 * assertPriceSlots(host.prices.schedules[0]!.import, {
 *   slotMs: 900_000, price: (start) => price(start) / 1000, count: 192, from: berlin('2026-11-20T00:00'),
 * });
 */
export function assertPriceSlots(slots: PriceSlot[], expected: ExpectedSlots): void {
  const { slotMs, price, count, from, to } = expected;
  if (count !== undefined) assert.equal(slots.length, count, 'the number of slots');
  if (from !== undefined) assert.equal(slots[0]?.start, from, 'the start of the first slot');
  if (to !== undefined) assert.equal(slots.at(-1)?.end, to, 'the end of the last slot');
  for (const [i, slot] of slots.entries()) {
    assert.equal(slot.end - slot.start, slotMs, `length of slot ${i}`);
    if (i > 0) assert.equal(slot.start, slots[i - 1]!.end, `slot ${i} follows the one before`);
    if (price) assert.ok(Math.abs(slot.price - price(slot.start)) < 1e-9, `price of slot ${i}: ${slot.price}`);
  }
}

/**
 * Options of {@link priceProviderHostOptions}.
 *
 * @example
 * const options: PriceProviderHostOptions<typeof configSchema> = {
 *   plugin, now: berlin('2026-11-20T14:00'), timeZone: 'Europe/Berlin', config: { baseUrl: fake.url },
 * };
 */
export interface PriceProviderHostOptions<S extends z.ZodType> {
  plugin: PluginDefinition<S>;
  /** The host's start time, Unix ms. */
  now: number;
  /** The site's zone. */
  timeZone: string;
  /** The instance config. */
  config: Record<string, unknown>;
}

/**
 * The test host options of a provider test: the plugin at `now` in the site zone `timeZone`,
 * retrying a failed request without waiting (`httpRetryDelayMs: 1`), so a 5xx test takes no time.
 *
 * @example
 * const start = (now: number, config: Record<string, unknown> = {}) =>
 *   startTestHost(priceProviderHostOptions({ plugin, now, timeZone: zone, config: { baseUrl: fake.url, ...config } }));
 */
export function priceProviderHostOptions<S extends z.ZodType>(
  options: PriceProviderHostOptions<S>,
): {
  plugin: PluginDefinition<S>;
  config: Record<string, unknown>;
  site: { timeZone: string };
  now: number;
  httpRetryDelayMs: number;
} {
  const { plugin, now, timeZone, config } = options;
  return { plugin, config, site: { timeZone }, now, httpRetryDelayMs: 1 };
}

/**
 * Puts a fake back as a test expects to find it: its state fields set anew and its requests
 * forgotten. Returns the fake.
 *
 * @example
 * beforeEach(() => resetFake(fake, { market: market() }));
 */
export function resetFake<F extends { requests: unknown[] }>(fake: F, state: Partial<F>): F {
  Object.assign(fake, state);
  fake.requests.length = 0;
  return fake;
}
