/*
 * The parts of OCPP 1.6 (edition 2, Open Charge Alliance) both sides here use: the charging
 * profile Heliograph sets, the meter values it reads, and the connector states. ocpp-rpc's
 * strict mode checks every message against the specification's JSON schemas on both sides;
 * these types are what this code builds and reads within them.
 */

/** §7.7 ChargePointStatus. */
export type ChargePointStatus =
  | 'Available'
  | 'Preparing'
  | 'Charging'
  | 'SuspendedEVSE'
  | 'SuspendedEV'
  | 'Finishing'
  | 'Reserved'
  | 'Unavailable'
  | 'Faulted';

/** The states in which a car is plugged in (§4.9: Preparing to Finishing). */
export const CAR_PLUGGED: ReadonlySet<string> = new Set([
  'Preparing',
  'Charging',
  'SuspendedEV',
  'SuspendedEVSE',
  'Finishing',
]);

/** §7.8 ChargingProfilePurposeType (ChargePointMaxProfile is the installer's, never set here). */
export type ProfilePurpose = 'ChargePointMaxProfile' | 'TxDefaultProfile' | 'TxProfile';

/** §7.13 ChargingSchedulePeriod. */
export interface SchedulePeriod {
  startPeriod: number;
  limit: number;
  numberPhases?: number;
}

/** §7.7 ChargingProfile, as SetChargingProfile.req's csChargingProfiles carries it (§6.43). */
export interface ChargingProfile {
  chargingProfileId: number;
  transactionId?: number;
  stackLevel: number;
  chargingProfilePurpose: ProfilePurpose;
  chargingProfileKind: 'Absolute' | 'Recurring' | 'Relative';
  recurrencyKind?: 'Daily' | 'Weekly';
  validFrom?: string;
  validTo?: string;
  chargingSchedule: {
    duration?: number;
    startSchedule?: string;
    chargingRateUnit: 'A' | 'W';
    chargingSchedulePeriod: SchedulePeriod[];
    minChargingRate?: number;
  };
}

/** §7.44 SampledValue. */
export interface SampledValue {
  value: string;
  context?: string;
  format?: string;
  measurand?: string;
  phase?: string;
  location?: string;
  unit?: string;
}

/** §7.41 MeterValue. */
export interface MeterValue {
  timestamp: string;
  sampledValue: SampledValue[];
}

/** What one MeterValues.req (or a transaction's meter start/stop) says, in SI units. */
export interface MeterReading {
  powerW?: number;
  energyWh?: number;
  currentA?: [number | undefined, number | undefined, number | undefined];
  soc?: number;
}

/** Reads §7.44's measurands Heliograph shows: power, energy register, current per phase, SoC. */
export function readMeterValues(values: readonly MeterValue[]): MeterReading {
  const reading: MeterReading = {};
  let powerSum: number | undefined;
  for (const meterValue of values) {
    for (const sample of meterValue.sampledValue) {
      const n = Number(sample.value);
      if (!Number.isFinite(n)) continue;
      // §7.44: measurand defaults to Energy.Active.Import.Register, unit to Wh.
      const measurand = sample.measurand ?? 'Energy.Active.Import.Register';
      const unit = sample.unit;
      const kilo = unit === 'kW' || unit === 'kWh' ? 1000 : 1;
      if (measurand === 'Energy.Active.Import.Register' && sample.phase === undefined) reading.energyWh = n * kilo;
      else if (measurand === 'Power.Active.Import') {
        if (sample.phase === undefined) reading.powerW = n * kilo;
        else if (/^L[123](-N)?$/.test(sample.phase)) powerSum = (powerSum ?? 0) + n * kilo;
      } else if (measurand === 'Current.Import' && sample.phase !== undefined) {
        const phase = Number(sample.phase.charAt(1)) - 1;
        if (phase >= 0 && phase < 3) {
          const currents = (reading.currentA ??= [undefined, undefined, undefined]);
          currents[phase] = n;
        }
      } else if (measurand === 'SoC') reading.soc = n;
    }
  }
  if (reading.powerW === undefined && powerSum !== undefined) reading.powerW = powerSum;
  return reading;
}

/** ISO 8601 in UTC, as OCPP's dateTime fields carry it. */
export const isoTime = (ms: number): string => new Date(ms).toISOString();
