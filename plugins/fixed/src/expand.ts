/**
 * A tariff turned into the price slots of whole local days, as the price book takes them.
 * Slots follow the local hours (so the grid answer and the planner see hourly prices like a
 * dynamic provider's) and are cut where a period changes price; a DST day has 23 or 25 of
 * them, each period's boundary at its wall-clock time (in the repeated hour of autumn, at both).
 */
import type { PriceSlot } from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import { appliesOn, piecesOf, type DayKind, type Period, type Schedule } from './tariff.js';

const MINUTE_MS = 60_000;

/** A tariff with prices: import always, export and a standing charge when configured. */
export interface Tariff {
  import: Schedule;
  export?: Schedule;
  /** Currency per local day. */
  standingPerDay?: number;
}

export interface ExpandedTariff {
  import: PriceSlot[];
  export?: PriceSlot[];
  standing?: PriceSlot[];
}

/**
 * The slots of `days` local days of `zone` from the one containing `now`: import and export
 * slots share their boundaries (the book matches export prices to import slots by time), and
 * the standing charge is one slot per local day.
 *
 * @example
 * expandTariff({ import: { flat: 0.25 }, standingPerDay: 0.45 }, { now: Date.now(), zone: 'Europe/Paris', days: 3 });
 */
export function expandTariff(tariff: Tariff, options: { now: number; zone: string; days: number }): ExpandedTariff {
  const first = DateTime.fromMillis(options.now, { zone: options.zone }).startOf('day');
  if (!first.isValid) throw new Error(`the site time zone "${options.zone}" is not a valid IANA time zone`);
  const out: Required<ExpandedTariff> = { import: [], export: [], standing: [] };
  for (let d = 0; d < options.days; d++) {
    const day = first.plus({ days: d });
    const kind: DayKind = day.weekday >= 6 ? 'weekends' : 'weekdays';
    const importDay = dayPrices(tariff.import, kind, day.month);
    const exportDay = tariff.export ? dayPrices(tariff.export, kind, day.month) : undefined;
    const cuts = [...new Set([...importDay.cuts, ...(exportDay?.cuts ?? [])])].sort((a, b) => a - b);
    const dayEnd = day.plus({ days: 1 }).toMillis();
    for (let hour = day; hour.toMillis() < dayEnd;) {
      // Time math: the next local hour start, one real hour on (two hours of the same
      // local time on an autumn DST day, none for the skipped one in spring).
      const next = hour.startOf('hour').plus({ hours: 1 });
      const start = hour.toMillis();
      const end = Math.min(next.toMillis(), dayEnd);
      const minute0 = hour.hour * 60 + hour.minute;
      const span = (end - start) / MINUTE_MS;
      const edges = [0, ...cuts.filter((c) => c > minute0 && c < minute0 + span).map((c) => c - minute0), span];
      for (let i = 0; i + 1 < edges.length; i++) {
        const slotStart = start + edges[i]! * MINUTE_MS;
        const slotEnd = start + edges[i + 1]! * MINUTE_MS;
        const minute = minute0 + edges[i]!;
        out.import.push({ start: slotStart, end: slotEnd, price: importDay.priceAt(minute) });
        if (exportDay) out.export.push({ start: slotStart, end: slotEnd, price: exportDay.priceAt(minute) });
      }
      hour = next;
    }
    if (tariff.standingPerDay !== undefined)
      out.standing.push({ start: day.toMillis(), end: dayEnd, price: tariff.standingPerDay });
  }
  return {
    import: out.import,
    ...(tariff.export ? { export: out.export } : {}),
    ...(tariff.standingPerDay !== undefined ? { standing: out.standing } : {}),
  };
}

/** The price at each minute of one kind of day in one month, and the minutes it changes at. */
function dayPrices(schedule: Schedule, kind: DayKind, month: number) {
  if ('flat' in schedule) return { cuts: [] as number[], priceAt: () => schedule.flat };
  const pieces = schedule.periods
    .filter((p: Period) => appliesOn(p, kind, month))
    .flatMap((p) => piecesOf(p).map(([from, to]) => ({ from, to, price: p.price })));
  const cuts = pieces.flatMap((p) => [p.from, p.to]);
  return {
    cuts,
    priceAt(minute: number): number {
      const piece = pieces.find((p) => minute >= p.from && minute < p.to);
      // The config's check makes every minute covered; a gap would be a bug here.
      if (!piece) throw new Error(`no tariff period covers minute ${minute} of a ${kind} day in month ${month}`);
      return piece.price;
    },
  };
}
