// The owner's chosen price source (config prices.source, prices.fallbacks): only the chosen
// source's prices are used, whoever declared first; a source nobody chose is kept but not in
// use; a fallback takes over when the chosen one has nothing and fills the slots it lacks.
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { PriceSlot } from '@heliograph/plugins-sdk';
import { ManualClock } from '../../src/clock.js';
import { gridAnswer } from '../../src/api/grid/answer.js';
import type { PriceSlot as PriceSlotJson } from '../../src/contract/types.js';
import { PriceBook } from '../../src/grid/book.js';

const HOUR = 3_600_000;
const NOW = Date.parse('2026-11-22T00:00:00Z');

/** `hours` hourly slots from `from`, all at `price`. */
function hours(from: number, count: number, price: number): PriceSlot[] {
  return Array.from({ length: count }, (_, h) => ({ start: from + h * HOUR, end: from + (h + 1) * HOUR, price }));
}

/** A book with three real providers: `grabber` declared first, then `tibber` and `awattar`. */
function threeProviders(options: { source?: string; fallbacks?: string[] } = {}) {
  const book = new PriceBook({ clock: new ManualClock(NOW), timeZone: 'UTC', multiplier: 1, offset: 0, ...options });
  book.declare('grabber', { provider: 'Grabber', currency: 'EUR', scheduleType: 'pricing' });
  book.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
  book.declare('awattar', { provider: 'aWATTar', currency: 'EUR', scheduleType: 'pricing' });
  book.publish('grabber', { import: hours(NOW, 24, -5) });
  return book;
}

const prices = (book: PriceBook) =>
  (gridAnswer(book.schedule()).pricing?.slots ?? []).map((s) => (s as PriceSlotJson).price);

describe('the chosen price source', () => {
  it('without a choice, the first declared provider with prices is active (as before)', () => {
    const book = threeProviders();
    book.publish('tibber', { import: hours(NOW, 24, 0.3) });
    assert.equal(gridAnswer(book.schedule()).provider, 'Grabber');
  });

  it("uses only the chosen source's prices; a source nobody chose is kept, not in use", () => {
    const book = threeProviders({ source: 'tibber', fallbacks: ['awattar'] });
    book.publish('tibber', { import: hours(NOW, 24, 0.3) });
    assert.equal(gridAnswer(book.schedule()).provider, 'Tibber');
    assert.deepEqual(new Set(prices(book)), new Set([0.3]));
    assert.equal(book.inUse('tibber'), true);
    assert.equal(book.inUse('grabber'), false, 'the unchosen -5 EUR prices are not in use');
  });

  it('a fallback is active while the chosen source has nothing, and fills the slots it lacks', () => {
    const book = threeProviders({ source: 'tibber', fallbacks: ['awattar'] });
    book.publish('awattar', { import: hours(NOW, 48, 0.2) });
    assert.equal(gridAnswer(book.schedule()).provider, 'aWATTar', 'the chosen one has published nothing yet');
    // Tibber knows today only; tomorrow comes from aWATTar, in Tibber's schedule.
    book.publish('tibber', { import: hours(NOW, 24, 0.3) });
    const response = gridAnswer(book.schedule());
    assert.equal(response.provider, 'Tibber');
    assert.deepEqual(prices(book), [...Array<number>(24).fill(0.3), ...Array<number>(24).fill(0.2)]);
    assert.equal(book.inUse('awattar'), true);
    assert.equal(book.inUse('grabber'), false);
  });

  it('a fallback in another currency fills nothing', () => {
    const book = new PriceBook({ clock: new ManualClock(NOW), timeZone: 'UTC', multiplier: 1, offset: 0 });
    book.declare('octopus', { provider: 'Octopus', currency: 'GBP', scheduleType: 'pricing' });
    book.declare('tibber', { provider: 'Tibber', currency: 'EUR', scheduleType: 'pricing' });
    book.choose('tibber', ['octopus']);
    book.publish('octopus', { import: hours(NOW, 48, 0.25) });
    book.publish('tibber', { import: hours(NOW, 24, 0.3) });
    assert.deepEqual(new Set(prices(book)), new Set([0.3]));
  });

  it('a new choice applies at once, and null goes back to the automatic choice', () => {
    const book = threeProviders();
    book.publish('awattar', { import: hours(NOW, 24, 0.2) });
    book.choose('awattar');
    assert.equal(gridAnswer(book.schedule()).provider, 'aWATTar');
    book.choose(null);
    assert.equal(gridAnswer(book.schedule()).provider, 'aWATTar', 'the active one stays while it has prices');
    book.choose('nobody');
    assert.equal(gridAnswer(book.schedule()).provider, 'none', 'a chosen source that never declared shows no prices');
  });
});
