/*
 * Which Growatt storage family a unit is, from its device type code (DTC), else from the
 * instance's `family`. The codes are Growatt's Table 3-1 (GROWATT VPP COMMUNICATION PROTOCOL
 * OF INVERTER V2.01/V2.03, "DTC code description"): SPH 3501..3504 and 3601 (three-phase), SPA
 * 3701, 3715, 3716, 3735 and 3725 (three-phase). That table belongs to the VPP protocol's
 * "Equipment type (DTC)", holding 30000, where 0xAHA/Growatt_ModbusTCP (auto_detection.py
 * async_read_dtc_code) reads it; the Modbus RTU protocol's holding 43 "DTC" is another list (the
 * v1.20 footnote &*6: per topology, 0x0100 .. 0x0C00 "Front 1 tracker PV Storage"), though some
 * units put their Table 3-1 code there too (Growatt_ModbusTCP's DTC_REGISTRY: a MIN 10000TL-X
 * reading 5201 at holding 43). So the code is taken from 30000 first, then from 43 when it is a
 * Table 3-1 code; a unit whose codes the table lacks (a pre-UP unit without the VPP range, whose
 * 43 holds a topology code) is refused unless the instance names its family.
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

/** The codes a unit reports: holding 30000 (null when it refuses the VPP range) and holding 43. */
export interface DeviceTypeCodes {
  vpp: number | null;
  legacy: number;
}

const known = (code: number | null) =>
  code === null ? undefined : GROWATT_MODELS.find((model) => model.codes.includes(code));

/** Where the codes were read, for a refusal: each register with what it held. */
function where(codes: DeviceTypeCodes): string {
  const vpp = codes.vpp === null ? 'holding 30000 refused (no VPP range)' : `${codes.vpp} in holding 30000`;
  return `${vpp}, ${codes.legacy} in holding 43`;
}

/**
 * The model a unit is: by its Table 3-1 code (holding 30000, else holding 43) when it agrees with
 * `configured`, else the configured family. Throws ConfigError naming the codes for an unknown
 * unit with `auto`, and for a code of the other family.
 *
 * @example
 * growattModel({ vpp: 3502, legacy: 0x0200 }, 'auto'); // { label: 'SPH 3000-6000TL', value: { family: 'sph', ... } }
 */
export function growattModel(codes: DeviceTypeCodes, configured: GrowattFamily | 'auto'): ModelChoice<FamilyModel> {
  const found = known(codes.vpp) ?? known(codes.legacy);
  const code = found && known(codes.vpp) ? codes.vpp! : codes.legacy;
  if (configured === 'auto') {
    if (found) return found;
    const table = GROWATT_MODELS.map((m) => `${m.codes.join('/')} ${m.label}`).join(', ');
    throw new ConfigError(
      `unknown device type code (${where(codes)}): this driver knows Growatt's Table 3-1 codes ${table}; it does not read or write a unit it cannot identify (set "family" to "sph" or "spa" if the unit is one)`,
    );
  }
  if (found && found.value.family !== configured)
    throw new ConfigError(
      `family "${configured}" is configured, but the unit reports device type code ${code} (${found.label}; ${where(codes)}); it does not read or write a unit of another family`,
    );
  return found ?? { codes: [code], label: FAMILY_LABELS[configured], value: configured === 'sph' ? sph : spa };
}
