/*
 * Which Growatt storage family a unit is, from the device type code (DTC) it reports in
 * holding register 43, else from the instance's `family`. The codes are Growatt's published
 * DTC table (Table 3-1 of the Growatt VPP communication protocol, as the Growatt_ModbusTCP
 * Home Assistant integration lists it): SPH 3501..3504 and 3601 (three-phase), SPA 3701,
 * 3715, 3716, 3735 and 3725 (three-phase). A code outside the table is refused unless the
 * instance names its family; a code of the other family than the one named is refused.
 */
import { ConfigError } from '@heliograph/plugins-sdk';
import type { ModelChoice, RegisterMap } from '@heliograph/plugins-sdk/connections';
import { sphMap } from './register-map.js';
import { spaMap } from './spa-map.js';

export type GrowattFamily = 'sph' | 'spa';

export interface FamilyModel {
  family: GrowattFamily;
  map: RegisterMap;
}

const sph: FamilyModel = { family: 'sph', map: sphMap };
const spa: FamilyModel = { family: 'spa', map: spaMap };

export const GROWATT_MODELS: ReadonlyArray<ModelChoice<FamilyModel>> = [
  { codes: [3501, 3502, 3503, 3504], label: 'SPH 3000-6000TL', value: sph },
  { codes: [3601], label: 'SPH 4000-10000TL3 BH', value: sph },
  { codes: [3701], label: 'SPA 1000-3000TL BL', value: spa },
  { codes: [3715, 3716, 3735], label: 'SPA 3000-6000TL', value: spa },
  { codes: [3725], label: 'SPA 4000-10000TL3 BH', value: spa },
];

/** What each family is called when the DTC does not name a model. */
const FAMILY_LABELS: Record<GrowattFamily, string> = {
  sph: 'SPH (family from config)',
  spa: 'SPA (family from config)',
};

const WHERE = 'holding register 43 (device type code)';

/**
 * The model a unit is: by its DTC when the table knows it (and it agrees with `configured`),
 * else the configured family. Throws ConfigError naming the code for an unknown code with
 * `auto`, and for a code of the other family.
 *
 * @example
 * growattModel(3701, 'auto'); // { label: 'SPA 1000-3000TL BL', value: { family: 'spa', ... } }
 */
export function growattModel(code: number, configured: GrowattFamily | 'auto'): ModelChoice<FamilyModel> {
  const known = GROWATT_MODELS.find((model) => model.codes.includes(code));
  if (configured === 'auto') {
    if (known) return known;
    const table = GROWATT_MODELS.map((m) => `${m.codes.join('/')} ${m.label}`).join(', ');
    throw new ConfigError(
      `unknown device type code ${code} in ${WHERE}: this driver knows ${table}; it does not read or write a unit it cannot identify (set "family" to "sph" or "spa" if the unit is one)`,
    );
  }
  if (known && known.value.family !== configured)
    throw new ConfigError(
      `family "${configured}" is configured, but the unit reports device type code ${code} (${known.label}) in ${WHERE}; it does not read or write a unit of another family`,
    );
  return known ?? { codes: [code], label: FAMILY_LABELS[configured], value: configured === 'sph' ? sph : spa };
}
