/*
 * Which models of a device's chain the driver reads: the first of each kind. Found once per
 * connection (and again when the device refuses a read, as after a firmware update).
 */
import { readModels, type Chain, type ModelLocation, type ReadTarget } from './chain.js';
import type { ModelData } from './points.js';
import { BATTERY, FLOAT_INVERTERS, INT_INVERTERS, METERS, MPPT, STORAGE } from './models.js';

/** The models a poll reads, by role. */
export interface Layout {
  common?: ModelLocation;
  inverter: ModelLocation;
  mppt?: ModelLocation;
  meter?: ModelLocation;
  storage?: ModelLocation;
  battery?: ModelLocation;
}

/**
 * The models the driver reads from `chain`; throws when the chain has no inverter model.
 *
 * @example
 * layoutOf({ base: 40000, models }).inverter.id; // 101
 */
export function layoutOf(chain: Chain): Layout {
  const find = (ids: readonly number[]) => chain.models.find((m) => ids.includes(m.id));
  const inverter = find([...INT_INVERTERS, ...FLOAT_INVERTERS]);
  if (!inverter) {
    throw new Error(
      `no SunSpec inverter model (101-103 or 111-113) among models ${chain.models.map((m) => m.id).join(', ') || 'none'} at ${chain.base}`,
    );
  }
  const optional = {
    common: find([1]),
    mppt: find([MPPT]),
    meter: find(METERS),
    storage: find([STORAGE]),
    battery: find([BATTERY]),
  };
  return {
    inverter,
    ...Object.fromEntries(Object.entries(optional).filter(([, model]) => model !== undefined)),
  };
}

type Role = keyof Layout;

/**
 * Reads the models of `roles` that the device has, in as few requests as possible.
 *
 * @example
 * const { inverter, meter } = await readLayout(target, layout, ['inverter', 'meter']);
 */
export async function readLayout<R extends Role>(
  target: ReadTarget,
  layout: Layout,
  roles: readonly R[],
): Promise<Partial<Record<R, ModelData>>> {
  const present = roles.flatMap((role) => {
    const model = layout[role];
    return model ? [{ role, model }] : [];
  });
  const data = await readModels(
    target,
    present.map((p) => p.model),
  );
  return Object.fromEntries(present.map((p, i) => [p.role, data[i]])) as Partial<Record<R, ModelData>>;
}
