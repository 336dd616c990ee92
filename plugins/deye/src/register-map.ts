/*
 * Every Deye / Sunsynk register map, as the package's `./register-map` entry point gives them
 * to tools and tests: the single-phase map (single-phase-map.ts), the three-phase LV and HV
 * maps (three-phase-map.ts), and the pieces they share (map-parts.ts). Each map carries its
 * reference points from the public documents (`references`).
 */
import type { RegisterMap } from '@heliograph/plugins-sdk/connections';
import type { GridPowerSource } from './map-parts.js';
import { DEYE_MODELS, type DeyeModel } from './models.js';

export * from './map-parts.js';
export { SINGLE_PHASE_REFERENCES, singlePhaseMap } from './single-phase-map.js';
export { threePhaseMap, threePhaseReferences } from './three-phase-map.js';
export { DEYE_MODELS, type DeyeModel } from './models.js';

/**
 * The map of every model the driver chooses between (by the device type in register 0), built
 * as the driver builds it for a unit of `ratedW`.
 *
 * @example
 * deyeMaps({ ratedW: 5000, gridPowerSource: 'auto' })['three-phase-hv'].references;
 */
export function deyeMaps(options: {
  ratedW: number;
  gridPowerSource: GridPowerSource;
}): Record<DeyeModel['id'], RegisterMap> {
  return Object.fromEntries(DEYE_MODELS.map(({ value }) => [value.id, value.map(options)])) as Record<
    DeyeModel['id'],
    RegisterMap
  >;
}
