import type { SitePriceSlot, SitePriceStatus } from '@heliograph/plugins-sdk';

/*
 * The price book's read model: the active provider's schedule as the site uses it, times in
 * Unix ms. The API layer writes it as GET /api/v1/grid's answer (api/grid/answer.ts, RFC 3339
 * times); plugins read it through `ctx.site.prices()` as it is (the SDK's SitePrices shape).
 */

/**
 * One slot: [start, end) in Unix ms, prices as shown (multiplier and offset applied), rank and
 * premium within its local day. The export fields are null where no export price covers the
 * slot, and in every slot of a `pricing` schedule.
 */
export type ScheduleSlot = SitePriceSlot;

/** Whether the active provider's prices can be trusted; `lastData` (Unix ms) is its last publish. */
export type ScheduleStatus = SitePriceStatus;

/** The standing charge of one local day, not adjusted by the multiplier and offset. */
export interface StandingCharge {
  currency: string;
  perDay: number;
}

/** The grid price schedule of the active provider, today onwards or of a range. */
export interface GridSchedule {
  /** The active provider's name; null while no price plugin has declared one. */
  provider: string | null;
  /** The plugin instance whose prices these are; absent without prices. */
  source?: string;
  /** `import_export_pricing` when the slots carry export prices (the provider's or the flat one). */
  scheduleType: 'pricing' | 'import_export_pricing';
  /** Null without a provider, or with one that has no dynamic prices. */
  pricing: { currency: string; slots: ScheduleSlot[] } | null;
  /** Present with prices. */
  status?: ScheduleStatus;
  /** Only when the provider publishes a standing charge; null on a day none covers. */
  standingCharge?: StandingCharge | null;
}
