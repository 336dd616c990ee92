// The pure parts of the energy view: totals, shares and money of the buckets the service
// answers (GET /api/v1/energy), and the words that say what the money includes. A bucket
// without readings is "no data" (null), never 0: it is left out of sums and named.

export const ENERGY_KINDS = ['pv', 'load', 'import', 'export', 'charge', 'discharge'] as const;
export type EnergyKind = (typeof ENERGY_KINDS)[number];

export type ResetPeriod = 'daily' | 'weekly' | 'monthly';

/** kWh per kind, one entry per bucket; null where the bucket has no data. */
export type EnergyTable = Record<EnergyKind, Array<number | null>>;

/** The money of one bucket, as the service figured it at the prices in force then. */
export interface BucketMoney {
  importCost: number;
  exportRevenue: number;
  standingCharge: number;
  /** importCost − exportRevenue + standingCharge. */
  netCost: number;
  /** What the home's use would have cost from the grid alone, less what it cost (standing charge excluded). */
  savings: number;
  pricedHours: number;
  unpricedHours: number;
}

const round = (x: number, digits: number) => Math.round(x * 10 ** digits) / 10 ** digits;

/** The sum of each kind over the buckets with data; null for a kind with no data at all. */
export function totalsOf(table: EnergyTable): Record<EnergyKind, number | null> {
  const out = {} as Record<EnergyKind, number | null>;
  for (const kind of ENERGY_KINDS) {
    const known = table[kind].filter((v): v is number => v !== null);
    out[kind] =
      known.length === 0
        ? null
        : round(
            known.reduce((a, b) => a + b, 0),
            3,
          );
  }
  return out;
}

/** Buckets with data, of those shown. */
export function bucketsWithData(table: EnergyTable): number {
  return table.pv.filter((_, i) => ENERGY_KINDS.some((k) => table[k][i] !== null)).length;
}

export interface Shares {
  /** Share of the solar energy used on site (not sold), 0-1, or null without solar. */
  selfConsumption: number | null;
  /** Share of the home's use not bought from the grid, 0-1, or null without use. */
  selfSufficiency: number | null;
}

/** Self-consumption and self-sufficiency, as Home Assistant's energy dashboard defines them. */
export function sharesOf(e: Record<EnergyKind, number | null>): Shares {
  const clamp = (x: number) => Math.min(1, Math.max(0, x));
  const pv = e.pv ?? 0;
  const load = e.load ?? 0;
  return {
    selfConsumption: pv > 0 ? clamp((pv - (e.export ?? 0)) / pv) : null,
    selfSufficiency: load > 0 ? clamp((load - (e.import ?? 0)) / load) : null,
  };
}

/** The money of a period: its buckets' money summed (null when no bucket has any). */
export function moneyTotal(money: Array<BucketMoney | null>): BucketMoney | null {
  const known = money.filter((m): m is BucketMoney => m !== null);
  if (known.length === 0) return null;
  const sum = (key: keyof BucketMoney) => known.reduce((a, m) => a + m[key], 0);
  return {
    importCost: round(sum('importCost'), 4),
    exportRevenue: round(sum('exportRevenue'), 4),
    standingCharge: round(sum('standingCharge'), 4),
    netCost: round(sum('netCost'), 4),
    savings: round(sum('savings'), 4),
    pricedHours: sum('pricedHours'),
    unpricedHours: sum('unpricedHours'),
  };
}

/**
 * What the money leaves out, in words: hours without a price, and sold energy that earned
 * nothing because no export price is known. Empty when it covers everything.
 */
export function moneyNotes(money: BucketMoney | null, soldKwh: number | null, withEnergy: number): string[] {
  if (money === null)
    return withEnergy > 0 ? ['No cost for this period: no price is known for any of its hours with energy.'] : [];
  const notes: string[] = [];
  const hours = money.pricedHours + money.unpricedHours;
  if (money.unpricedHours > 0)
    notes.push(
      money.pricedHours === 0
        ? `No cost for this period: none of its ${hours} h with energy has a known price.`
        : `Cost of ${money.pricedHours} of ${hours} h; ${money.unpricedHours} h without a price.`,
    );
  if ((soldKwh ?? 0) > 0 && money.exportRevenue === 0 && money.pricedHours > 0)
    notes.push('Sold energy not priced: no export price.');
  return notes;
}
