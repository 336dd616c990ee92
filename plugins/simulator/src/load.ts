/**
 * A household's consumption: standby and a cycling fridge, morning, midday and evening
 * peaks in local wall-clock time (later mornings at weekends), and appliances that switch
 * on at random from the seeded noise.
 */
import { IANAZone } from 'luxon';
import { Channel, hash01 } from './random.js';

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const SLOT = 15 * MINUTE;

interface Appliance {
  watts: number;
  /** Once on, it stays on for a whole slot. */
  slotMs: number;
  /** Chance of being on in a slot starting at this local hour. */
  chance(hour: number, weekend: boolean): number;
}

const APPLIANCES: readonly Appliance[] = [
  // kettle
  {
    watts: 2000,
    slotMs: 3 * MINUTE,
    chance: (h, we) => 0.001 + 0.03 * bell(h, we ? 9 : 7, 1) + 0.02 * bell(h, 16, 1.5),
  },
  // microwave
  { watts: 1100, slotMs: 2 * MINUTE, chance: (h) => 0.002 + 0.04 * bell(h, 12.5, 1) + 0.04 * bell(h, 18.5, 1) },
  // oven
  { watts: 2400, slotMs: 20 * MINUTE, chance: (h, we) => 0.15 * bell(h, 18, 0.8) + (we ? 0.15 * bell(h, 12, 0.8) : 0) },
  // washing machine heating
  { watts: 2000, slotMs: 15 * MINUTE, chance: (h) => (h > 9 && h < 20 ? 0.025 : 0) },
  // dishwasher
  { watts: 1800, slotMs: 20 * MINUTE, chance: (h) => 0.1 * bell(h, 21, 0.8) },
];

/** Gaussian bump around `center` on the 24-hour circle. */
function bell(hour: number, center: number, width: number): number {
  let d = Math.abs(hour - center);
  if (d > 12) d = 24 - d;
  return Math.exp(-0.5 * (d / width) ** 2);
}

export class HouseholdLoad {
  private readonly zone: IANAZone;
  // The UTC offset only changes at quarter-hour boundaries, and the model asks for
  // consecutive times, so one remembered slot saves nearly every zone lookup.
  private offsetSlot = Number.NaN;
  private offsetMs = 0;

  constructor(
    private readonly seed: number,
    timeZone: string,
  ) {
    this.zone = IANAZone.create(timeZone);
  }

  /** Site consumption in W at `t` (Unix ms). */
  powerAt(t: number): number {
    const local = t + this.utcOffsetMs(t);
    const hour = (((local / HOUR) % 24) + 24) % 24;
    const weekday = (((Math.floor(local / (24 * HOUR)) + 3) % 7) + 7) % 7; // Monday = 0
    const weekend = weekday >= 5;

    let watts = 120 + 200 * bell(hour, 21.5, 1.5);
    const fridgePhase = hash01(this.seed, Channel.fridge, 0) * 45;
    if ((t / MINUTE + fridgePhase) % 45 < 15) watts += 110;
    watts += 500 * bell(hour, weekend ? 9 : 7, 1);
    watts += (weekend ? 450 : 200) * bell(hour, 12.5, 1.5);
    watts += 700 * bell(hour, 19.5, 1.6);
    for (let i = 0; i < APPLIANCES.length; i++) {
      const appliance = APPLIANCES[i]!;
      const slot = Math.floor(t / appliance.slotMs);
      const slotHour = hour - (t - slot * appliance.slotMs) / HOUR;
      if (hash01(this.seed, Channel.appliance + i, slot) < appliance.chance((slotHour + 24) % 24, weekend))
        watts += appliance.watts;
    }
    watts += (hash01(this.seed, Channel.loadNoise, Math.floor(t / 30_000)) - 0.5) * 60;
    return Math.max(60, watts);
  }

  private utcOffsetMs(t: number): number {
    const slot = Math.floor(t / SLOT);
    if (slot !== this.offsetSlot) {
      this.offsetSlot = slot;
      this.offsetMs = this.zone.offset(t) * MINUTE;
    }
    return this.offsetMs;
  }
}
