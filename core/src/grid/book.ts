import type { PriceProviderDeclaration, PriceSlot } from '@heliograph/plugins-sdk';
import { DateTime } from 'luxon';
import type { Clock } from '../clock.js';
import { roundTo } from '../numbers.js';
import { createLogger } from '../log.js';
import type { PriceSink } from '../topics/sinks.js';
import { formatUtc } from '../rfc3339.js';
import type { PriceHistory } from './price-history.js';
import type { GridSchedule, ScheduleSlot, ScheduleStatus, StandingCharge } from './schedule.js';

const log = createLogger('grid');

export type ScheduleType = 'pricing' | 'import_export_pricing' | 'none';

export type { GridSchedule, ScheduleSlot, ScheduleStatus, StandingCharge } from './schedule.js';

interface SourceState {
  declaration: PriceProviderDeclaration;
  import: PriceSlot[];
  export: PriceSlot[];
  /** The plugin instance that declared it (GET /api/v1/plugins' id). */
  source: string;
  /** When it last published (the time of its last good data); null before its first publish. */
  lastPublish: number | null;
  /** Standing charge slots: the charge for the whole slot, never adjusted. */
  standing: PriceSlot[];
  /** Whether it ever published `standing`: only then does the schedule carry a standing charge. */
  hasStanding: boolean;
  /**
   * Export slots at the Site settings' flat export price (a provider of import prices only),
   * as this book recorded them: over its import slots' times, each priced when it was
   * published or the setting changed before the slot began, never after.
   */
  flatExport: PriceSlot[];
}

/** What a provider publishes, as the SDK's `ctx.prices.publish` takes it. */
export interface PriceSchedule {
  import: PriceSlot[];
  export?: PriceSlot[];
  standing?: PriceSlot[];
}

export interface PriceBookOptions {
  clock: Clock;
  /** IANA zone of the site: ranks and premiums are per local day of it. */
  timeZone: string;
  /** From config `prices`: shown price = raw * multiplier + offset. */
  multiplier: number;
  offset: number;
  /**
   * From config `prices.exportPrice`: the flat export (feed-in) price, raw like a provider's
   * (multiplier and offset apply), given to the slots of a provider that publishes no export
   * series; null or absent: none.
   */
  exportPrice?: number | null;
  /** Where the active provider's prices are kept for past days; without it only memory (today on). */
  history?: PriceHistory;
  /**
   * The owner's chosen price source (a plugin instance id) and its fallbacks in order: only
   * their publications are used, the first with prices to show is active, and the slots it
   * lacks after (or before) its own are filled from the next of them in the same currency.
   * Others' publications are kept but not used. Absent or null: the automatic choice (see
   * {@link PriceBook}), as with a single provider.
   */
  source?: string | null;
  fallbacks?: readonly string[];
}

/** The longest range GET /api/v1/grid answers: a calendar year in any zone, with a day to spare. */
export const MAX_PRICE_RANGE_MS = 367 * 86_400_000;

/** Prices that end sooner than this from now are `stale` in the schedule's status. */
export const STALE_WITHIN_MS = 3_600_000;

/**
 * What the plugin host says of a price plugin instance (GET /api/v1/plugins' `state` and
 * `last_error`), undefined for an instance it does not know.
 */
export type SourceHealth = (source: string) => { state: string; last_error: string | null } | undefined;

/**
 * What the site makes of a source's publications (GET /api/v1/plugins' `source_role`):
 * `active` is the one in use, `fallback` one the owner named after it (used where it has
 * nothing), `standby` one kept but not used.
 */
export type SourceRole = 'active' | 'fallback' | 'standby';

/** The schedule when no price plugin is configured: no provider, no prices. */
const NO_PROVIDER: GridSchedule = { provider: null, scheduleType: 'pricing', pricing: null };

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

  /** The plugin host's view of each source, for the answer's `status`; see {@link watchHealth}. */
  private health: SourceHealth | undefined;

  constructor(private readonly options: PriceBookOptions) {}

  /**
   * Lets the grid answer (and `ctx.site.prices`) say that the active provider's plugin
   * failed: the host is built after the book (it hands the book to plugins), so it is
   * given here. Returns the disposer.
   */
  watchHealth(health: SourceHealth): () => void {
    this.health = health;
    return () => {
      if (this.health === health) this.health = undefined;
    };
  }

  /**
   * The site's price settings changed (applied without a restart): the stored raw slots
   * are shown with the new multiplier and offset from the next read on, and local days
   * follow the new time zone. A new flat export price prices the slots that have not begun
   * (kept from now on); those begun keep the price they had.
   */
  reconfigure(
    settings: Pick<PriceBookOptions, 'timeZone' | 'multiplier' | 'offset' | 'exportPrice' | 'source' | 'fallbacks'>,
  ): void {
    if ('source' in settings || 'fallbacks' in settings) this.choose(settings.source, settings.fallbacks);
    this.options.timeZone = settings.timeZone;
    this.options.multiplier = settings.multiplier;
    this.options.offset = settings.offset;
    if (settings.exportPrice === undefined || settings.exportPrice === (this.options.exportPrice ?? null)) return;
    this.options.exportPrice = settings.exportPrice;
    const active = this.activeSource();
    if (active) this.save(active, [], undefined, undefined, this.priceUpcoming(active));
  }

  /** The owner's chosen source and fallbacks (config `prices.source`, `prices.fallbacks`); null: automatic. */
  choose(source: string | null | undefined, fallbacks: readonly string[] = []): void {
    this.options.source = source ?? null;
    this.options.fallbacks = fallbacks;
    this.activeSource();
  }

  /**
   * Whether `source`'s publications are used: the active provider's, or a fallback's that
   * fills its gaps. False for a source the owner did not choose (kept, not in use).
   */
  inUse(source: string): boolean {
    const active = this.activeSource();
    return active?.source === source || this.fillers(active).some((s) => s.source === source);
  }

  /**
   * `source`'s role: `active` for the active provider (with a chosen source, the chosen one
   * while none of the owner's list has declared), `fallback` for another source the owner
   * named (config `prices.source` or `prices.fallbacks`), `standby` for any other.
   */
  roleOf(source: string): SourceRole {
    const { source: chosen, fallbacks = [] } = this.options;
    if (source === (this.activeSource()?.source ?? chosen)) return 'active';
    return chosen && (source === chosen || fallbacks.includes(source)) ? 'fallback' : 'standby';
  }

  declare(source: string, args: PriceProviderDeclaration): () => void {
    if (args.scheduleType !== 'none' && !args.currency) {
      throw new Error(
        `prices.declare: currency is required when scheduleType is "${args.scheduleType}" (e.g. currency: 'EUR')`,
      );
    }
    if (this.sources.has(source)) throw new Error(`prices.declare: ${source} has already declared its provider`);
    const state: SourceState = {
      declaration: { ...args },
      import: [],
      export: [],
      source,
      lastPublish: null,
      standing: [],
      hasStanding: false,
      flatExport: [],
    };
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

  publish(source: string, schedule: PriceSchedule): void {
    const state = this.sources.get(source);
    if (!state) throw new Error('prices.publish before prices.declare: declare the provider in setup first');
    if (schedule.export?.length && state.declaration.scheduleType !== 'import_export_pricing') {
      throw new Error(
        `prices.publish: export prices need scheduleType "import_export_pricing"; ${source} declared "${state.declaration.scheduleType}"`,
      );
    }
    if (schedule.standing && state.declaration.scheduleType === 'none') {
      throw new Error(
        `prices.publish: a standing charge needs a currency and scheduleType "pricing" or "import_export_pricing"; ${source} declared "none"`,
      );
    }
    const keepFrom = this.dayStart(this.options.clock.now(), -1);
    state.lastPublish = this.options.clock.now();
    const imports = validSlots(schedule.import, source);
    const exports = schedule.export ? validSlots(schedule.export, source) : undefined;
    const standing = schedule.standing ? validSlots(schedule.standing, source) : undefined;
    state.import = replaceCovered(state.import, imports, keepFrom);
    if (exports) state.export = replaceCovered(state.export, exports, keepFrom);
    if (standing) {
      state.standing = replaceCovered(state.standing, standing, keepFrom);
      state.hasStanding = true;
    }
    // The publish is saved whole (past days a provider sends too); a source that just became
    // active has had what its memory holds saved by activeSource as well.
    if (this.activeSource() === state) this.save(state, imports, exports, standing, this.priceUpcoming(state));
  }

  /** Resolves once the prices published so far are saved (the server's close). */
  async flush(): Promise<void> {
    await this.options.history?.flush();
  }

  /** The schedule from the start of the current local day to the last published slot (GET /api/v1/grid). */
  schedule(): GridSchedule {
    const active = this.activeSource();
    if (!active) return NO_PROVIDER;
    const todayStart = this.dayStart(this.options.clock.now(), 0);
    const response = this.respond(
      active,
      this.withFallbacks(active).filter((s) => s.start >= todayStart),
      this.exportsOf(active),
    );
    if (!active.hasStanding) return response;
    return { ...response, standingCharge: this.chargeOf(active, active.standing, todayStart) };
  }

  /**
   * The active provider's standing charge slots overlapping [from, to), raw (a charge per
   * slot, never adjusted): the saved past with what memory holds. Empty without a provider
   * that publishes a standing charge.
   */
  async standingSlots(from: number, to: number): Promise<{ currency: string; slots: PriceSlot[] } | null> {
    const active = this.activeSource();
    const currency = active?.declaration.currency;
    if (!active || !currency || active.declaration.scheduleType === 'none') return null;
    const past = this.options.history ? await this.options.history.read('standing', from, to, currency) : [];
    const slots = replaceCovered(past, active.standing, -Infinity).filter((s) => s.start < to && s.end > from);
    return { currency, slots };
  }

  /**
   * The schedule of the slots overlapping [from, to): the saved past with what memory holds
   * (memory wins over the range it covers: it has the latest publish). Ranks and premiums are
   * per local day among the slots answered.
   */
  async rangeSchedule(from: number, to: number): Promise<GridSchedule> {
    const active = this.activeSource();
    if (!active) return NO_PROVIDER;
    const { currency, scheduleType } = active.declaration;
    const history = this.options.history;
    const withExport = this.exportSchedule(active);
    const overlapping = (slots: readonly PriceSlot[]) => slots.filter((s) => s.start < to && s.end > from);
    // The standing charge answered for a range is that of the local day `from` falls in.
    const fromDay = this.dayStart(from, 0);
    const withStanding = (schedule: GridSchedule, standing: readonly PriceSlot[]): GridSchedule =>
      active.hasStanding || standing.length > 0
        ? { ...schedule, standingCharge: this.chargeOf(active, standing, fromDay) }
        : schedule;
    if (!history || scheduleType === 'none' || !currency)
      return withStanding(this.respond(active, overlapping(active.import), this.exportsOf(active)), active.standing);
    // Not waiting for saves in progress (a lock held by another process could hold them up):
    // what they carry for today on is in memory, merged below.
    const [pastImport, pastExport, pastStanding] = await Promise.all([
      history.read('import', from, to, currency),
      withExport ? history.read('export', from, to, currency) : [],
      history.read('standing', Math.min(from, fromDay), Math.max(to, this.dayStart(from, 1)), currency),
    ]);
    return withStanding(
      this.respond(
        active,
        overlapping(replaceCovered(pastImport, active.import, -Infinity)),
        replaceCovered(pastExport, this.exportsOf(active), -Infinity),
      ),
      replaceCovered(pastStanding, active.standing, -Infinity),
    );
  }

  /**
   * The standing charge of the local day starting at `dayStart`: each slot overlapping it
   * counts for the share of it that falls in the day (a day slot whole, a month slot a day's
   * part); null when none overlaps.
   */
  private chargeOf(active: SourceState, standing: readonly PriceSlot[], dayStart: number): StandingCharge | null {
    const { currency } = active.declaration;
    const dayEnd = this.dayStart(dayStart, 1);
    let perDay = 0;
    let found = false;
    for (const s of standing) {
      const overlap = Math.min(s.end, dayEnd) - Math.max(s.start, dayStart);
      if (overlap <= 0) continue;
      found = true;
      perDay += (s.price * overlap) / (s.end - s.start);
    }
    return found && currency ? { currency, perDay: roundTo(perDay, 5) } : null;
  }

  private respond(active: SourceState, shown: readonly PriceSlot[], exportSlots: readonly PriceSlot[]): GridSchedule {
    const { provider, currency, scheduleType } = active.declaration;
    const { source } = active;
    if (scheduleType === 'none') return { provider, scheduleType: 'pricing', pricing: null };
    const imports = shown.map((s) => this.adjust(s.price));
    const days = shown.map((s) => this.localDay(s.start));
    const importStats = dayStats(imports, days, 'cheapest');

    const withExport = this.exportSchedule(active);
    // Export prices are matched to import slots by time, so both share one slot list even
    // when a provider publishes them at different resolutions.
    let next = 0;
    const exports = shown.map((s) => {
      if (!withExport) return null;
      // Both lists are in time order: one pass, however long the range.
      while (next < exportSlots.length && exportSlots[next]!.end <= s.start) next++;
      const covering = exportSlots[next];
      return covering && covering.start <= s.start ? this.adjust(covering.price) : null;
    });
    const exportStats = dayStats(exports, days, 'highest');
    const slots = shown.map((s, i): ScheduleSlot => ({
      start: s.start,
      end: s.end,
      importPrice: imports[i]!,
      importRank: importStats.rank[i]!,
      importPremium: importStats.premium[i]!,
      exportPrice: exports[i] ?? null,
      exportRank: exportStats.rank[i] ?? null,
      exportPremium: exportStats.premium[i] ?? null,
    }));
    return {
      provider,
      source,
      scheduleType: withExport ? 'import_export_pricing' : 'pricing',
      pricing: { currency: currency!, slots },
      status: this.statusOf(active),
    };
  }

  /**
   * Whether the active provider's prices can be trusted: `failed` while its plugin instance
   * is failed or has an error (GET /api/v1/plugins' state and last_error, through
   * {@link watchHealth}), else `stale` when its slots end within the hour (or it has
   * published none yet), else `ok`; `lastData` is the time of its last publish.
   */
  private statusOf(active: SourceState): ScheduleStatus {
    const { provider } = active.declaration;
    const lastData = active.lastPublish;
    const health = this.health?.(active.source);
    if (health && (health.state === 'failed' || health.last_error !== null))
      return { state: 'failed', message: health.last_error ?? `${provider} failed`, lastData };
    const end = active.import.reduce((last, s) => Math.max(last, s.end), -Infinity);
    if (end === -Infinity) return { state: 'stale', message: `no prices from ${provider} yet`, lastData };
    if (end < this.options.clock.now() + STALE_WITHIN_MS)
      return { state: 'stale', message: `prices from ${provider} end at ${formatUtc(end)}`, lastData };
    return { state: 'ok', message: null, lastData };
  }

  /**
   * Whether the answer has export prices: the provider publishes an export series, or it
   * publishes import prices only and the Site settings give a flat export price (a
   * provider's own series wins over the setting).
   */
  private exportSchedule(state: SourceState): boolean {
    const { scheduleType } = state.declaration;
    return (
      scheduleType === 'import_export_pricing' ||
      (scheduleType === 'pricing' && (this.options.exportPrice ?? null) !== null)
    );
  }

  /** The export slots in memory: the provider's series, or the flat price's over its import slots. */
  private exportsOf(state: SourceState): PriceSlot[] {
    return state.declaration.scheduleType === 'import_export_pricing' ? state.export : state.flatExport;
  }

  /**
   * Prices the import slots of a provider without an export series that have not begun yet
   * at the flat export price (the slots begun keep theirs, so no past money moves), in
   * memory, and returns the slots to keep in the price history; undefined when there is
   * nothing to keep. Without a flat price, the slots priced earlier are kept at 0 from now
   * on (the history has no removal): export then earns nothing, as without a price.
   */
  private priceUpcoming(state: SourceState): PriceSlot[] | undefined {
    if (state.declaration.scheduleType !== 'pricing') return undefined;
    const now = this.options.clock.now();
    const price = this.options.exportPrice ?? null;
    const begun = state.flatExport.filter((s) => s.start < now);
    if (price === null) {
      const unpriced = state.flatExport.filter((s) => s.start >= now).map((s) => ({ ...s, price: 0 }));
      state.flatExport = begun;
      return unpriced.length > 0 ? unpriced : undefined;
    }
    const upcoming = state.import.filter((s) => s.start >= now).map((s) => ({ start: s.start, end: s.end, price }));
    state.flatExport = [...begun.filter((s) => s.end > this.dayStart(now, -1)), ...upcoming];
    return upcoming.length > 0 ? upcoming : undefined;
  }

  /** The owner's chosen source and its fallbacks that have declared, in the owner's order; undefined: automatic. */
  private chosen(): SourceState[] | undefined {
    const { source, fallbacks = [] } = this.options;
    if (!source) return undefined;
    return [source, ...fallbacks].flatMap((id) => this.sources.get(id) ?? []);
  }

  /** The chosen sources after `active` with the same currency and import prices: they fill its gaps. */
  private fillers(active: SourceState | undefined): SourceState[] {
    const chosen = this.chosen();
    if (!active || !chosen) return [];
    const { currency, scheduleType } = active.declaration;
    return chosen
      .slice(chosen.indexOf(active) + 1)
      .filter(
        (s) => s.declaration.currency === currency && s.declaration.scheduleType !== 'none' && scheduleType !== 'none',
      );
  }

  /** The active provider's import slots, with the fallbacks' where it has none (before or after its own). */
  private withFallbacks(active: SourceState): PriceSlot[] {
    let slots = active.import;
    for (const filler of this.fillers(active)) slots = replaceCovered(filler.import, slots, -Infinity);
    return slots;
  }

  /** The active provider, chosen anew when a declaration or publish calls for it (see the class). */
  private activeSource(): SourceState | undefined {
    const chosen = this.chosen();
    if (chosen) return this.activate(chosen.find(hasSomethingToShow) ?? chosen[0]);
    const declared = [...this.sources.values()];
    const ranked = [...declared.filter((s) => !s.declaration.demo), ...declared.filter((s) => s.declaration.demo)];
    const best = ranked.find(hasSomethingToShow) ?? ranked[0];
    const current = this.active && declared.includes(this.active) ? this.active : undefined;
    const keep =
      current &&
      hasSomethingToShow(current) &&
      !(current.declaration.demo && best && !best.declaration.demo && hasSomethingToShow(best));
    return this.activate(keep ? current : best);
  }

  private activate(chosen: SourceState | undefined): SourceState | undefined {
    if (chosen !== this.active && chosen && this.active)
      log.info(`${chosen.declaration.provider} is now the active price provider`);
    if (chosen !== this.active && chosen)
      this.save(chosen, chosen.import, chosen.export, chosen.standing, this.priceUpcoming(chosen));
    this.active = chosen;
    return chosen;
  }

  /** Keeps the active provider's slots for past days (the history option). */
  private save(
    state: SourceState,
    imports: readonly PriceSlot[],
    exports: readonly PriceSlot[] | undefined,
    standing: readonly PriceSlot[] | undefined,
    flatExport: readonly PriceSlot[] | undefined,
  ): void {
    const { provider, currency, scheduleType } = state.declaration;
    const history = this.options.history;
    if (!history || !currency || scheduleType === 'none') return;
    history.record({ kind: 'import', slots: imports, currency, provider });
    if (exports && scheduleType === 'import_export_pricing')
      history.record({ kind: 'export', slots: exports, currency, provider });
    if (flatExport) history.record({ kind: 'export', slots: flatExport, currency, provider });
    if (standing) history.record({ kind: 'standing', slots: standing, currency, provider });
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
