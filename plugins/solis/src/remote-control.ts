/*
 * The Solis hybrid's "remote control" (RC) registers, as plain data: holding 43135 forces the
 * battery (0 none, 1 force charge, 2 force discharge), 43136 is the force charge power and
 * 43129 the force discharge power (W / 10), and 43282 the RC timeout in minutes, after which
 * the inverter drops the force (43135 back to 0) by itself unless 43135 is written again
 * (Pho3niX90/solis_modbus `__init__.py`: RC_FORCE_MODE_REG 43135, RC_CHARGE_POWER_REG 43136,
 * RC_DISCHARGE_POWER_REG 43129, RC_TIMEOUT_REG 43282 "minutes (1-30); command self-reverts
 * after this", and `sensor_data/hybrid_sensors.py` "RC Force Battery Charge/discharge",
 * "RC Timeout" default 5; wills106/homeassistant-solax-modbus `plugin_solis.py` "Battery
 * control override" 43135 {0 Off, 1 Force charge, 2 Force discharge}, 43136 / 43129 scale 10).
 *
 * Each command is these registers: Normal 43135 = 0; Charge 1 at its power; Discharge 2 at its
 * power; Hold a force charge at 0 W (the battery neither charges nor discharges, the house
 * draws from PV and the grid). A forced command always writes 43135 first (firmware latches the
 * setpoints and the timeout only after it: Pho3niX90/solis_modbus issue #352, "the #352 RC
 * combo") and then only the setpoint and the timeout that differ; writing 43135 again is what
 * restarts the inverter's countdown, so a renewal is that one register.
 */
import type { BatteryCommand, BatteryMode } from '@heliograph/plugins-sdk';

export const RC = {
  /** Force discharge power, W / 10. */
  dischargePower: 43129,
  /** 0 none, 1 force charge, 2 force discharge. */
  mode: 43135,
  /** Force charge power, W / 10. */
  chargePower: 43136,
  /** Minutes until the inverter drops the force by itself. */
  timeout: 43282,
} as const;

export const RC_OFF = 0;
export const RC_CHARGE = 1;
export const RC_DISCHARGE = 2;
/** The longest RC timeout the sources give (Pho3niX90 "RC Timeout" max 30): the lease. */
export const MAX_TIMEOUT_MIN = 30;
/** The power registers count tens of watts. */
const W_PER_UNIT = 10;

/** The RC registers as the inverter holds them. */
export interface RcWords {
  mode: number;
  chargePower: number;
  dischargePower: number;
  timeout: number;
}

/** How far past the lease's end a timeout may reach: the time a request takes to the inverter anyway. */
const GRACE_MS = 5000;

/**
 * The RC timeout for a lease ending at `until`, whole minutes not past it (by more than the
 * few seconds a write takes, so a lease written a few milliseconds after it began is still its
 * full 30 minutes and a renewal leaves the register as it is), 1..30; null when less than a
 * minute is left (no timeout that short exists: the lease is as good as over).
 *
 * @example
 * timeoutMinutes(now + 30 * 60_000 - 20, now); // 30
 */
export function timeoutMinutes(until: number, now: number): number | null {
  const minutes = Math.floor((until - now + GRACE_MS) / 60_000);
  return minutes < 1 ? null : Math.min(MAX_TIMEOUT_MIN, minutes);
}

const powerWord = (watts: number) => Math.min(0xffff, Math.max(0, Math.round(watts / W_PER_UNIT)));

/**
 * The RC registers for `command` from `words` (what the inverter holds), with the timeout
 * `timeout` for a forced one; Normal leaves the setpoints and the timeout as they are.
 *
 * @example
 * rcPlan({ mode: 'charge', powerW: 3000, targetSoc: 90 }, words, 30); // { mode: 1, chargePower: 300, timeout: 30, ... }
 */
export function rcPlan(command: BatteryCommand, words: RcWords, timeout: number): RcWords {
  switch (command.mode) {
    case 'normal':
      return { ...words, mode: RC_OFF };
    case 'hold':
      return { ...words, mode: RC_CHARGE, chargePower: 0, timeout };
    case 'charge':
      return { ...words, mode: RC_CHARGE, chargePower: powerWord(command.powerW), timeout };
    case 'discharge':
      return { ...words, mode: RC_DISCHARGE, dischargePower: powerWord(command.powerW), timeout };
  }
}

/** One register write (function 06). */
export interface RcWrite {
  address: number;
  value: number;
}

/**
 * The writes that take the inverter from `old` to `next`: a forced `next` writes 43135 first
 * (always: it restarts the countdown) and then the setpoint and the timeout that differ;
 * Normal writes 43135 when it is not already 0, and nothing else.
 *
 * @example
 * rcWrites(charging, charging); // a renewal: [{ address: 43135, value: 1 }]
 */
export function rcWrites(old: RcWords, next: RcWords): RcWrite[] {
  if (next.mode === RC_OFF) return old.mode === RC_OFF ? [] : [{ address: RC.mode, value: RC_OFF }];
  const writes: RcWrite[] = [{ address: RC.mode, value: next.mode }];
  const power = next.mode === RC_CHARGE ? 'chargePower' : 'dischargePower';
  if (old[power] !== next[power]) writes.push({ address: RC[power], value: next[power] });
  if (old.timeout !== next.timeout) writes.push({ address: RC.timeout, value: next.timeout });
  return writes;
}

/**
 * The first register of `next` that the inverter does not read back (`got`), or null. Only
 * what the command needs is checked: 43135, and the setpoint and timeout of a forced one.
 */
export function rcMismatch(got: RcWords, next: RcWords): string | null {
  const names: Array<keyof RcWords> =
    next.mode === RC_OFF ? ['mode'] : ['mode', next.mode === RC_CHARGE ? 'chargePower' : 'dischargePower', 'timeout'];
  const wrong = names.find((name) => got[name] !== next[name]);
  return wrong ? `register ${RC[wrong]} reads ${got[wrong]} after writing ${next[wrong]}` : null;
}

/**
 * What the RC registers make the battery do: `normal` without a force, `hold` for a force at
 * 0 W, else `charge` or `discharge`; null for a value of 43135 the document does not give.
 *
 * @example
 * rcMode({ mode: 1, chargePower: 0, dischargePower: 150, timeout: 30 }); // 'hold'
 */
export function rcMode(words: RcWords): BatteryMode | null {
  if (words.mode === RC_OFF) return 'normal';
  if (words.mode === RC_CHARGE) return words.chargePower === 0 ? 'hold' : 'charge';
  if (words.mode === RC_DISCHARGE) return words.dischargePower === 0 ? 'hold' : 'discharge';
  return null;
}
