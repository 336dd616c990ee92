/*
 * The emulated charge point's smart charging (OCPP 1.6 edition 2, §3.13 Smart Charging): the
 * profiles it holds per connector and the limit they give at a moment. What no valid profile
 * covers is the charge point's own default, as a real charger falls back when a central
 * system's profile ends.
 */
import type { ChargingProfile } from '../ocpp16.js';

const VOLTAGE = 230;

export interface Limit {
  currentA: number;
  phases: 1 | 3;
  /** What gave it: a profile's purpose and id, or `default`. */
  source: string;
}

export interface StoredProfile {
  connectorId: number;
  profile: ChargingProfile;
}

export class ProfileStore {
  private profiles: StoredProfile[] = [];

  /**
   * §5.16 SetChargingProfile: a profile with the same id, or the same stack level and purpose
   * (on the same connector), replaces the one held (§3.13.2).
   */
  set(connectorId: number, profile: ChargingProfile): void {
    this.profiles = this.profiles.filter(
      (p) =>
        p.profile.chargingProfileId !== profile.chargingProfileId &&
        !(
          p.connectorId === connectorId &&
          p.profile.stackLevel === profile.stackLevel &&
          p.profile.chargingProfilePurpose === profile.chargingProfilePurpose
        ),
    );
    this.profiles.push({ connectorId, profile });
  }

  /** §5.5 ClearChargingProfile: by id, or by every criterion given; answers whether any was removed. */
  clear(criteria: {
    id?: number;
    connectorId?: number;
    chargingProfilePurpose?: string;
    stackLevel?: number;
  }): boolean {
    const before = this.profiles.length;
    this.profiles = this.profiles.filter((p) => {
      if (criteria.id !== undefined) return p.profile.chargingProfileId !== criteria.id;
      const matches =
        (criteria.connectorId === undefined || p.connectorId === criteria.connectorId) &&
        (criteria.chargingProfilePurpose === undefined ||
          p.profile.chargingProfilePurpose === criteria.chargingProfilePurpose) &&
        (criteria.stackLevel === undefined || p.profile.stackLevel === criteria.stackLevel);
      return !matches;
    });
    return this.profiles.length < before;
  }

  /** §3.13.1: a TxProfile ends with its transaction. */
  endTransaction(transactionId: number): void {
    this.profiles = this.profiles.filter((p) => p.profile.transactionId !== transactionId);
  }

  /** Forgets the profiles whose validTo has passed: they never apply again. */
  prune(now: number): void {
    this.profiles = this.profiles.filter((p) => p.profile.validTo === undefined || now < Date.parse(p.profile.validTo));
  }

  list(): readonly StoredProfile[] {
    return this.profiles;
  }

  /**
   * The limit on connector 1 at `now` (§3.13.2 stacking): of each purpose the valid profile
   * with the highest stack level; a TxProfile of the running transaction over a
   * TxDefaultProfile (connector 1's over connector 0's), capped by a ChargePointMaxProfile;
   * none: `fallback`, the charge point's own default.
   */
  limitAt(now: number, transactionId: number | null, fallback: Omit<Limit, 'source'>): Limit {
    const best = (purpose: string, connectors: number[]) => {
      for (const connectorId of connectors) {
        const candidates = this.profiles
          .filter((p) => p.connectorId === connectorId && p.profile.chargingProfilePurpose === purpose)
          .filter((p) => purpose !== 'TxProfile' || p.profile.transactionId === transactionId)
          .map((p) => ({ p, limit: periodAt(p.profile, now, fallback.phases) }))
          .filter((c): c is { p: StoredProfile; limit: Omit<Limit, 'source'> } => c.limit !== null)
          .sort((a, b) => b.p.profile.stackLevel - a.p.profile.stackLevel);
        const top = candidates[0];
        if (top) return { ...top.limit, source: `${purpose} ${top.p.profile.chargingProfileId}` };
      }
      return null;
    };
    const tx = transactionId === null ? null : best('TxProfile', [1]);
    const chosen = tx ?? best('TxDefaultProfile', [1, 0]) ?? { ...fallback, source: 'default' };
    const max = best('ChargePointMaxProfile', [0]);
    return max && max.currentA < chosen.currentA ? { ...chosen, currentA: max.currentA } : chosen;
  }
}

/** The period of `profile` in force at `now`, in amps, or null when the profile does not apply then. */
function periodAt(profile: ChargingProfile, now: number, phases: 1 | 3): Omit<Limit, 'source'> | null {
  if (profile.validFrom !== undefined && now < Date.parse(profile.validFrom)) return null;
  if (profile.validTo !== undefined && now >= Date.parse(profile.validTo)) return null;
  const schedule = profile.chargingSchedule;
  // Absolute schedules start at startSchedule; Relative ones (and a missing start) at the profile's arrival is
  // approximated by validFrom, else the moment asked about.
  const start = Date.parse(schedule.startSchedule ?? profile.validFrom ?? new Date(now).toISOString());
  const elapsedS = (now - start) / 1000;
  if (elapsedS < 0) return null;
  if (schedule.duration !== undefined && elapsedS >= schedule.duration) return null;
  let period = undefined;
  for (const p of schedule.chargingSchedulePeriod) if (p.startPeriod <= elapsedS) period = p;
  if (!period) return null;
  const n: 1 | 3 = period.numberPhases === 1 ? 1 : period.numberPhases === 3 ? 3 : phases;
  const currentA = schedule.chargingRateUnit === 'W' ? period.limit / (n * VOLTAGE) : period.limit;
  return { currentA, phases: n };
}
