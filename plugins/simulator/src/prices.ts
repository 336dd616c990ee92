/**
 * Demo day-ahead prices in EUR/kWh, 15-minute slots from local midnight today to local
 * midnight after tomorrow (and, for a backfill, the past days it covers): cheap at night and
 * around a sunny midday, dear at the evening peak, a little cheaper at weekends.
 */
import { localDays, type PriceSlot } from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { Channel, hash01, roundTo } from './random.js';
import type { SiteModel } from './site.js';
import { expectedWeather } from './weather.js';

export const PRICE_SLOT_MS = 15 * 60_000;

function bell(hour: number, center: number, width: number): number {
  return Math.exp(-0.5 * ((hour - center) / width) ** 2);
}

export function demoPriceSlots(model: SiteModel, timeZone: string, now: number): PriceSlot[] {
  const days = localDays({ now, zone: timeZone });
  return demoPriceSlotsBetween(model, timeZone, days.todayStart, days.end);
}

/**
 * The same prices for the local days from the one holding `from` to the one before `to`'s
 * local midnight (the past days a backfill covers): each day's are what they were on it,
 * since a day's prices depend only on the day.
 */
export function demoPriceSlotsBetween(model: SiteModel, timeZone: string, from: number, to: number): PriceSlot[] {
  const slots: PriceSlot[] = [];
  let day = DateTime.fromMillis(from, { zone: timeZone }).startOf('day');
  while (day.toMillis() < to) {
    const next = day.plus({ days: 1 });
    slots.push(...dayPrices(model, timeZone, day.toMillis(), next.toMillis()));
    day = next;
  }
  return slots;
}

function dayPrices(model: SiteModel, timeZone: string, start: number, end: number): PriceSlot[] {
  const slots: PriceSlot[] = [];
  const dayIndex = Math.floor(start / 86_400_000 + 0.5);
  const weekend = DateTime.fromMillis(start, { zone: timeZone }).weekday >= 6;
  const level = 0.2 + (hash01(model.seed, Channel.priceDay, dayIndex) - 0.5) * 0.08 - (weekend ? 0.025 : 0);
  const noonSky = expectedWeather(model.seed, model.latitude, model.longitude, start + (end - start) / 2);
  const sunniness = 1 - noonSky.cloudCover;
  for (let t = start; t < end; t += PRICE_SLOT_MS) {
    const local = DateTime.fromMillis(t, { zone: timeZone });
    const hour = local.hour + local.minute / 60;
    const price =
      level -
      0.06 * bell(hour, 3, 2) +
      0.04 * bell(hour, 8, 1.2) -
      (0.04 + 0.1 * sunniness) * bell(hour, 13, 2.2) +
      0.15 * bell(hour, 19, 1.5) +
      (hash01(model.seed, Channel.priceSlot, t / PRICE_SLOT_MS) - 0.5) * 0.012;
    slots.push({ start: t, end: Math.min(t + PRICE_SLOT_MS, end), price: roundTo(price, 5) });
  }
  return slots;
}
