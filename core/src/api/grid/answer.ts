import type { GridResponse, ImportExportSlot, PriceSlot } from '../../contract/types.js';
import type { GridSchedule, ScheduleSlot, ScheduleStatus } from '../../grid/schedule.js';
import { formatUtc } from '../../rfc3339.js';

/**
 * GET /api/v1/grid's answer (contract/grid.ts) from the price book's schedule: times as
 * RFC 3339, snake_case fields, the slot shape of its schedule type, `provider: "none"`
 * without a provider.
 */
export function gridAnswer(schedule: GridSchedule): GridResponse {
  const { provider, source, scheduleType, pricing, status, standingCharge } = schedule;
  if (!pricing) return { provider: provider ?? 'none', schedule_type: 'pricing', pricing: null };
  const toSlot: (slot: ScheduleSlot) => PriceSlot | ImportExportSlot =
    scheduleType === 'pricing' ? priceSlot : importExportSlot;
  const slots = pricing.slots.map(toSlot);
  const answer: GridResponse = {
    provider: provider ?? 'none',
    source,
    schedule_type: scheduleType,
    pricing: { currency: pricing.currency, unit: `${pricing.currency}/kWh`, slots },
  };
  if (status) answer.status = statusAnswer(status);
  if (standingCharge !== undefined)
    answer.standing_charge = standingCharge && { currency: standingCharge.currency, per_day: standingCharge.perDay };
  return answer;
}

function priceSlot(slot: ScheduleSlot): PriceSlot {
  return {
    from: formatUtc(slot.start),
    to: formatUtc(slot.end),
    price: slot.importPrice,
    rank: slot.importRank,
    premium: slot.importPremium,
  };
}

function importExportSlot(slot: ScheduleSlot): ImportExportSlot {
  return {
    from: formatUtc(slot.start),
    to: formatUtc(slot.end),
    import_price: slot.importPrice,
    import_rank: slot.importRank,
    import_premium: slot.importPremium,
    export_price: slot.exportPrice,
    export_rank: slot.exportRank,
    export_premium: slot.exportPremium,
  };
}

function statusAnswer(status: ScheduleStatus): NonNullable<GridResponse['status']> {
  const { state, message, lastData } = status;
  return { state, message, last_data: lastData === null ? null : formatUtc(lastData) };
}
