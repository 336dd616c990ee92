import type { ForecastStore } from '../../forecast/store.js';
import type { PriceBook, SourceRole } from '../../grid/book.js';
import type { InstanceStatus } from '../../plugins/host/host.js';

/** Where each source's role is known: the price book and the forecast store. */
export interface SourceRoles {
  prices: Pick<PriceBook, 'roleOf'>;
  forecast: Pick<ForecastStore, 'roleOf'>;
}

const RANK: Record<SourceRole, number> = { active: 2, fallback: 1, standby: 0 };

/**
 * GET /api/v1/plugins' `source_role` of an instance: its role as price source for a `prices`
 * plugin, as forecast source for a `forecast` plugin; for another plugin approved to publish
 * either (the simulator's demo prices and forecast, an integration granted them), the higher
 * of its roles in those. Undefined for an instance that publishes neither.
 */
export function sourceRoleOf(status: InstanceStatus, roles: SourceRoles): SourceRole | undefined {
  if (status.kind === 'prices') return roles.prices.roleOf(status.id);
  if (status.kind === 'forecast') return roles.forecast.roleOf(status.id);
  const approved = status.grants?.approved;
  const held = [
    ...(approved?.prices ? [roles.prices.roleOf(status.id)] : []),
    ...(approved?.forecast ? [roles.forecast.roleOf(status.id)] : []),
  ];
  return held.length === 0 ? undefined : held.reduce((a, b) => (RANK[b] > RANK[a] ? b : a));
}
