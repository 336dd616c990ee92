import type { PriceProviderDeclaration, PriceSlot } from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import type { Clock } from '../clock.js';
import { roundTo } from '../numbers.js';
import { createLogger } from '../log.js';
import type {
  GridResponse,
  ImportExportSlot as ImportExportSlotJson,
  PriceSlot as PriceSlotJson,
} from '../api-types.js';
import type { PriceSink } from '../topics/sinks.js';
import { formatUtc } from '../rfc3339.js';
import type { PriceHistory } from './price-history.js';

const log = createLogger('grid');

export type ScheduleType = 'pricing' | 'import_export_pricing' | 'none';

/** The body of GET /api/v1/grid and its slots, as api/grid/schemas.ts defines them. */
export type {
  GridResponse,
  ImportExportSlot as ImportExportSlotJson,
  PriceSlot as PriceSlotJson,
} from '../api-types.js';

interface SourceState {
  declaration: PriceProviderDeclaration;
  import: PriceSlot[];
  export: PriceSlot[];
}

export interface PriceBookOptions {
  clock: Clock;
  /** IANA zone of the site: ranks and premiums are per local day of it. */
  timeZone: string;
  /** From config `prices`: shown price = raw * multiplier + offset. */
  multiplier: number;
  offset: number;
  /** Where the active provider's prices are kept for past days; without it only memory (today on). */
  history?: PriceHistory;
}

/** The longest range GET /api/v1/grid answers: a calendar year in any zone, with a day to spare. */
export const MAX_PRICE_RANGE_MS = 367 * 86_400_000;

/** The grid answer when no price plugin is configured: no provider, no prices. */
const NO_PROVIDER: GridResponse = { provider: 'none', schedule_type: 'pricing', pricing: null };

/**
 * The grid price schedule of the active price provider, as GET /api/v1/grid shows it.
 *
 * One declared source is the active provider; the others are kept on standby (their
 * publishes are stored), so two price feeds never mix in one schedule. The active one stays
 * while it has something to show (slots, or no dynamic prices at all) and is not a declared
 * demo (the simulator's prices) with a real provider ready. Otherwise the choice falls on a
 * real provider before a demo, and among those on the first declared that has something to
 * show, else the first declared. So a provider restarted after a reconfiguration, declared
 * anew behind a standby that never fetched anything, takes over again with its first
 * publish, rather than leaving /grid to the empty standby. A publish replaces the stored slots its range covers and
 * keeps the others, so a failed fetch never loses the schedule already known. Slots are
 * stored as the plugin sent them; multiplier and offset (config, fixed at start) are applied
 * when the schedule is read.
 */
export class PriceBook implements PriceSink {
  /** Declared sources in declaration order; the first is active. */
  private readonly sources = new Map<string, SourceState>();
  private active: SourceState | undefined;

  constructor(private readonly options: PriceBookOptions) {}

  /**
   * The site's price settings changed (applied without a restart): the stored raw slots
   * are shown with the new multiplier and offset from the next read on, and local days
   * follow the new time zone.
   */
  reconfigure(settings: Pick<PriceBookOptions, 'timeZone' | 'multiplier' | 'offset'>): void {
    this.options.timeZone = settings.timeZone;
    this.options.multiplier = settings.multiplier;
    this.options.offset = settings.offset;
  }

  declare(source: string, args: PriceProviderDeclaration): () => void {
    if (args.scheduleType !== 'none' && !args.currency) {
      throw new Error(
        `prices.declare: currency is required when scheduleType is "${args.scheduleType}" (e.g. currency: 'EUR')`,
      );
    }
    if (this.sources.has(source)) throw new Error(`prices.declare: ${source} has already declared its provider`);
    const state: SourceState = { declaration: { ...args }, import: [], export: [] };
    this.sources.set(source, state);
    const active = this.activeSource();
    if (active && active !== state)
      log.warn(
        `price plugin ${source} (${args.provider}) is on standby: ${active.declaration.provider} is the active provider`,
      );
    return () => {
      if (this.sources.get(source) === state) this.sources.delete(source);
      this.activeSource();
    };
  }

  publish(source: string, schedule: { import: PriceSlot[]; export?: PriceSlot[] }): void {
    const state = this.sources.get(source);
    if (!state) throw new Error('prices.publish before prices.declare: declare the provider in setup first');
    if (schedule.export?.length && state.declaration.scheduleType !== 'import_export_pricing') {
      throw new Error(
        `prices.publish: export prices need scheduleType "import_export_pricing"; ${source} declared "${state.declaration.scheduleType}"`,
      );
    }
    const keepFrom = this.dayStart(this.options.clock.now(), -1);
    const imports = validSlots(schedule.import, source);
    const exports = schedule.export ? validSlots(schedule.export, source) : undefined;
    state.import = replaceCovered(state.import, imports, keepFrom);
    if (exports) state.export = replaceCovered(state.export, exports, keepFrom);
    // The publish is saved whole (past days a provider sends too); a source that just became
    // active has had what its memory holds saved by activeSource as well.
    if (this.activeSource() === state) this.save(state, imports, exports);
  }

  /** Resolves once the prices published so far are saved (the server's close). */
  async flush(): Promise<void> {
    await this.options.history?.flush();
  }

  /** The grid answer: slots from the start of the current local day to the last published one. */
  toResponse(): GridResponse {
    const active = this.activeSource();
    if (!active) return NO_PROVIDER;
    const todayStart = this.dayStart(this.options.clock.now(), 0);
    return this.respond(
      active,
      active.import.filter((s) => s.start >= todayStart),
      active.export,
    );
  }

  /**
   * The grid answer for the slots overlapping [from, to): the saved past with what memory
   * holds (memory wins over the range it covers: it has the latest publish). Ranks and
   * premiums are per local day among the slots answered.
   */
  async rangeResponse(from: number, to: number): Promise<GridResponse> {
    const active = this.activeSource();
    if (!active) return NO_PROVIDER;
    const { currency, scheduleType } = active.declaration;
    const history = this.options.history;
    const overlapping = (slots: readonly PriceSlot[]) => slots.filter((s) => s.start < to && s.end > from);
    if (!history || scheduleType === 'none' || !currency)
      return this.respond(active, overlapping(active.import), active.export);
    // Not waiting for saves in progress (a lock held by another process could hold them up):
    // what they carry for today on is in memory, merged below.
    const [pastImport, pastExport] = await Promise.all([
      history.read('import', from, to, currency),
      scheduleType === 'import_export_pricing' ? history.read('export', from, to, currency) : [],
    ]);
    return this.respond(
      active,
      overlapping(replaceCovered(pastImport, active.import, -Infinity)),
      replaceCovered(pastExport, active.export, -Infinity),
    );
  }

  private respond(active: SourceState, shown: readonly PriceSlot[], exportSlots: readonly PriceSlot[]): GridResponse {
    const { provider, currency, scheduleType } = active.declaration;
    if (scheduleType === 'none') return { provider, schedule_type: 'pricing', pricing: null };
    const imports = shown.map((s) => this.adjust(s.price));
    const days = shown.map((s) => this.localDay(s.start));
    const importStats = dayStats(imports, days, 'cheapest');
    const pricing = {
      currency: currency!,
      unit: `${currency}/kWh`,
      slots: [] as Array<PriceSlotJson | ImportExportSlotJson>,
    };

    if (scheduleType === 'pricing') {
      pricing.slots = shown.map((s, i) => ({
        from: formatUtc(s.start),
        to: formatUtc(s.end),
        price: imports[i]!,
        rank: importStats.rank[i]!,
        premium: importStats.premium[i]!,
      }));
      return { provider, schedule_type: 'pricing', pricing };
    }

    // Export prices are matched to import slots by time, so both share one slot list even
    // when a provider publishes them at different resolutions.
    let next = 0;
    const exports = shown.map((s) => {
      // Both lists are in time order: one pass, however long the range.
      while (next < exportSlots.length && exportSlots[next]!.end <= s.start) next++;
      const covering = exportSlots[next];
      return covering && covering.start <= s.start ? this.adjust(covering.price) : null;
    });
    const exportStats = dayStats(exports, days, 'highest');
    pricing.slots = shown.map((s, i) => ({
      from: formatUtc(s.start),
      to: formatUtc(s.end),
      import_price: imports[i]!,
      import_rank: importStats.rank[i]!,
      import_premium: importStats.premium[i]!,
      export_price: exports[i]!,
      export_rank: exportStats.rank[i] ?? null,
      export_premium: exportStats.premium[i] ?? null,
    }));
    return { provider, schedule_type: 'import_export_pricing', pricing };
  }

  /** The active provider, chosen anew when a declaration or publish calls for it (see the class). */
  private activeSource(): SourceState | undefined {
    const declared = [...this.sources.values()];
    const ranked = [...declared.filter((s) => !s.declaration.demo), ...declared.filter((s) => s.declaration.demo)];
    const best = ranked.find(hasSomethingToShow) ?? ranked[0];
    const current = this.active && declared.includes(this.active) ? this.active : undefined;
    const keep =
      current &&
      hasSomethingToShow(current) &&
      !(current.declaration.demo && best && !best.declaration.demo && hasSomethingToShow(best));
    const chosen = keep ? current : best;
    if (chosen !== this.active && chosen && this.active)
      log.info(`${chosen.declaration.provider} is now the active price provider`);
    if (chosen !== this.active && chosen) this.save(chosen, chosen.import, chosen.export);
    this.active = chosen;
    return chosen;
  }

  /** Keeps the active provider's slots for past days (the history option). */
  private save(state: SourceState, imports: readonly PriceSlot[], exports: readonly PriceSlot[] | undefined): void {
    const { provider, currency, scheduleType } = state.declaration;
    const history = this.options.history;
    if (!history || !currency || scheduleType === 'none') return;
    history.record({ kind: 'import', slots: imports, currency, provider });
    if (exports && scheduleType === 'import_export_pricing')
      history.record({ kind: 'export', slots: exports, currency, provider });
  }

  private adjust(raw: number): number {
    return roundTo(raw * this.options.multiplier + this.options.offset, 5);
  }

  private localDay(ms: number): string {
    return DateTime.fromMillis(ms, { zone: this.options.timeZone }).toISODate()!;
  }

  /** Start of the local day `offsetDays` from the one containing `ms`. */
  private dayStart(ms: number, offsetDays: number): number {
    return DateTime.fromMillis(ms, { zone: this.options.timeZone })
      .startOf('day')
      .plus({ days: offsetDays })
      .toMillis();
  }
}

function hasSomethingToShow(state: SourceState): boolean {
  return state.declaration.scheduleType === 'none' || state.import.length > 0;
}

/**
 * Rank and premium of each price within its local day. `cheapest`: rank 1 = lowest price;
 * `highest`: rank 1 = highest (export: best paid). Equal prices rank the earlier slot first
 * (the input is in time order, and the sort is stable). Missing prices get no rank.
 */
function dayStats(prices: ReadonlyArray<number | null>, days: readonly string[], best: 'cheapest' | 'highest') {
  const rank = new Array<number | undefined>(prices.length);
  const premium = new Array<number | undefined>(prices.length);
  const byDay = new Map<string, number[]>();
  prices.forEach((price, i) => {
    if (price === null) return;
    let list = byDay.get(days[i]!);
    if (!list) byDay.set(days[i]!, (list = []));
    list.push(i);
  });
  for (const indexes of byDay.values()) {
    const sum = indexes.reduce((acc, i) => acc + prices[i]!, 0);
    const average = sum / indexes.length;
    const order = [...indexes].sort((a, b) =>
      best === 'cheapest' ? prices[a]! - prices[b]! : prices[b]! - prices[a]!,
    );
    order.forEach((i, position) => (rank[i] = position + 1));
    for (const i of indexes) premium[i] = roundTo(prices[i]! - average, 5);
  }
  return { rank, premium };
}

/** Drops slots a plugin should never send (empty, reversed, not finite), with a warning. */
function validSlots(slots: readonly PriceSlot[], source: string): PriceSlot[] {
  const valid = slots.filter(
    (s) => Number.isFinite(s.start) && Number.isFinite(s.end) && s.end > s.start && Number.isFinite(s.price),
  );
  if (valid.length < slots.length)
    log.warn(`${slots.length - valid.length} price slot(s) from ${source} have no valid start, end or price; ignored`);
  return valid.sort((a, b) => a.start - b.start);
}

/** The stored slots with those overlapping the new range replaced, older than `keepFrom` dropped. */
function replaceCovered(stored: readonly PriceSlot[], incoming: readonly PriceSlot[], keepFrom: number): PriceSlot[] {
  if (incoming.length === 0) return stored.filter((s) => s.end > keepFrom);
  const first = incoming[0]!.start;
  const last = Math.max(...incoming.map((s) => s.end));
  const kept = stored.filter((s) => s.end > keepFrom && (s.end <= first || s.start >= last));
  return [...kept, ...incoming.map((s) => ({ start: s.start, end: s.end, price: s.price }))].sort(
    (a, b) => a.start - b.start,
  );
}
