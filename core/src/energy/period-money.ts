import type { Db } from '../db.js';
import { roundTo } from '../numbers.js';

/** A stored price slot: [start, end) Unix ms, its price (per kWh, or the whole charge for standing). */
export interface StoredSlot {
  start: number;
  end: number;
  price: number;
}

/** The prices kept for a range (grid/price-history.ts's `price_slots`), import and export adjusted as /grid shows them. */
export interface KeptPrices {
  import: StoredSlot[];
  export: StoredSlot[];
  /** Standing charges: one slot's price is the whole charge of its span, never adjusted. */
  standing: StoredSlot[];
}

/**
 * The kept slots of each kind in `currency` overlapping [from, to), in time order. Import and
 * export prices get the Site settings' multiplier and offset as GET /api/v1/grid applies them
 * (raw * multiplier + offset, to 5 decimals); the standing charge (kind 'standing', where the
 * price book keeps one) is per day, not per kWh, so it is taken as stored.
 */
export async function readKeptPrices(
  db: Db,
  currency: string,
  from: number,
  to: number,
  adjust: { multiplier: number; offset: number },
): Promise<KeptPrices> {
  const read = (kind: string) =>
    db.all<StoredSlot[]>(
      'SELECT start, end, price FROM price_slots WHERE kind = ? AND currency = ? AND start < ? AND end > ? ORDER BY start',
      kind,
      currency,
      to,
      from,
    );
  const [imports, exports, standing] = await Promise.all([read('import'), read('export'), read('standing')]);
  const adjusted = (slots: StoredSlot[]) =>
    slots.map((s) => ({ ...s, price: roundTo(s.price * adjust.multiplier + adjust.offset, 5) }));
  return { import: adjusted(imports), export: adjusted(exports), standing };
}

/** The currency of the latest kept slot, for costing when no price provider is active now. */
export async function latestCurrency(db: Db): Promise<string | null> {
  const row = await db.get<{ currency: string }>('SELECT currency FROM price_slots ORDER BY end DESC LIMIT 1');
  return row?.currency ?? null;
}

/**
 * The time-weighted mean price of the slots over [from, to), or null when none covers any of
 * it. `cursor` walks forward through the slots (groups are asked in time order), so a year of
 * hours is one pass over them.
 */
export function meanPrice(
  slots: readonly StoredSlot[],
  cursor: { i: number },
  from: number,
  to: number,
): number | null {
  while (cursor.i < slots.length && slots[cursor.i]!.end <= from) cursor.i++;
  let weighted = 0;
  let covered = 0;
  for (let j = cursor.i; j < slots.length && slots[j]!.start < to; j++) {
    const s = slots[j]!;
    const overlap = Math.min(to, s.end) - Math.max(from, s.start);
    if (overlap <= 0) continue;
    weighted += s.price * overlap;
    covered += overlap;
  }
  return covered > 0 ? weighted / covered : null;
}

/** The standing charges overlapping [from, to), each prorated by the share of its span inside; null when none does. */
export function standingCharge(slots: readonly StoredSlot[], from: number, to: number): number | null {
  let total: number | null = null;
  if (to <= from) return null;
  for (const s of slots) {
    if (s.start >= to) break;
    const overlap = Math.min(to, s.end) - Math.max(from, s.start);
    if (overlap > 0) total = (total ?? 0) + (s.price * overlap) / (s.end - s.start);
  }
  return total;
}

/** A bucket's money as it adds up group by group. */
export class MoneyTally {
  importCost = 0;
  exportRevenue = 0;
  loadAtImport = 0;
  pricedHours = 0;
  unpricedHours = 0;

  /** A group of `hours` with readings: its kWh at the import price in force (null: unpriced) and the export price. */
  add(
    hours: number,
    kwh: { gridIn: number; gridOut: number; load: number },
    importPrice: number | null,
    exportPrice: number | null,
  ): void {
    if (importPrice === null) {
      this.unpricedHours += hours;
      return;
    }
    this.pricedHours += hours;
    this.importCost += kwh.gridIn * importPrice;
    this.loadAtImport += kwh.load * importPrice;
    if (exportPrice !== null) this.exportRevenue += kwh.gridOut * exportPrice;
  }

  /** The answer's `money`: null when nothing in the bucket had a price (no import price, no standing charge). */
  result(standing: number | null) {
    if (this.pricedHours === 0 && standing === null) return null;
    const charge = standing ?? 0;
    const net = this.importCost - this.exportRevenue;
    return {
      import_cost: roundTo(this.importCost, 4),
      export_revenue: roundTo(this.exportRevenue, 4),
      standing_charge: roundTo(charge, 4),
      net_cost: roundTo(net + charge, 4),
      savings: roundTo(this.loadAtImport - net, 4),
      priced_hours: roundTo(this.pricedHours, 2),
      unpriced_hours: roundTo(this.unpricedHours, 2),
    };
  }
}
