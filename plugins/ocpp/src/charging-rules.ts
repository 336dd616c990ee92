// The rules that turn "what the sun, the house and the owner want" into the current an EV
// charger may offer, once per measurement (every ~10 s). Pure: no I/O and no timers; the time
// comes in `inputs.now` and everything remembered (timers, when the contactor last closed)
// travels in `RuleState`, which the caller passes back unchanged at the next call.
//
// In words, for a newcomer:
// - A car charges at 6 A per phase or more (IEC 61851; evcc's loadpoint default `minCurrent`
//   6 A, evcc-io/evcc core/loadpoint.go `NewLoadpoint`), or not at all: 1.4 kW on one phase,
//   4.1 kW on three. So solar charging is not a dimmer that reaches zero; it starts, follows
//   the surplus in 1 A steps between the minimum and maximum, and pauses.
// - Every start and stop closes or opens the charger's contactor, and some cars give up after
//   a few interruptions (evcc docs, features/solar-charging "Not enough surplus?"). So:
//   surplus must last `enableDelayMs` (1 min) before a start and be missing for
//   `disableDelayMs` (3 min) before a stop (evcc's `Enable.Delay` / `Disable.Delay` defaults,
//   core/loadpoint.go `NewLoadpoint`, and `pvMaxCurrent`); and whatever the surplus does, a
//   charge runs at least `minRunMs` and a pause lasts at least `minPauseMs` (5 min each: evcc's
//   former contactor `GuardDuration`, 5 min, core/loadpoint.go before evcc PR #12084, kept here
//   because a bounded number of toggles is this acceptance test).
// - A charger that switches 1 phase <-> 3 phases itself starts solar charging on one phase and
//   goes to three once the surplus carries 3 x 6 A and is more than one phase at the maximum
//   takes, after the enable delay; it goes back to one phase when three no longer fit, after
//   the disable delay (evcc core/loadpoint.go `pvScalePhases`: scale up after `GetEnableDelay`,
//   down after `GetDisableDelay`, at once while not charging). Never more often than
//   `minPhaseIntervalMs` (5 min, our choice, the contactor's rest again).
// - The current is the surplus per phase rounded down (evcc `roundedCurrent` truncates); it
//   rises a step only when `deadbandA` (0.25 A, our choice) more is there, so a surplus on a
//   step's edge does not send a new charging profile every 10 s; it falls at once.
// - Surplus = export + what this charger draws now - what the home battery discharges (unless
//   the owner lets the battery feed the car). A charging home battery is the house's first
//   claim on the sun (evcc docs, features/battery "Where does the solar energy go first?"): its
//   charging power counts as surplus only at or above `batteryPrioritySoc` (evcc's
//   `prioritySoc`, core/site.go `sitePower`); by default never.
// - `holdHomeBattery` in the decision asks the caller to keep the home battery from
//   discharging while the car draws (the SDK's battery control `hold`; evcc's
//   `batteryDischargeControl`, core/site_battery.go), unless the owner allowed battery-to-car
//   (and, with `batteryToCarMinSoc`, only while the battery is above that SoC: evcc's
//   `bufferSoc`, docs features/battery "Battery-supported vehicle charging").
//
// Modes: `off` 0 at once. `now` the maximum on as many phases as there are. `pv` the surplus
// only, with the delays above. `min+pv` never below the minimum while a car is plugged (the grid
// tops up), more when there is surplus. `planned` the planner's power for this quarter as
// current (rounded down, at most the maximum, below the minimum: paused), without the surplus
// delays; no plan: `min+pv`, and the reason says so. The contactor's minimum run and pause hold in every mode, except that
// `off` and unplugging stop at once: an owner's "off" is never delayed.

/** How the charger is asked to charge; the owner picks it per charger. */
export type ChargeMode = 'off' | 'now' | 'min+pv' | 'pv' | 'planned';
export const CHARGE_MODES: readonly ChargeMode[] = ['off', 'now', 'min+pv', 'pv', 'planned'];

/** IEC 61851: below 6 A per phase a car does not charge. */
export const IEC_MIN_CURRENT_A = 6;
/** Per-phase voltage when the charger does not report one (evcc's default `Voltage`, 230 V). */
export const DEFAULT_VOLTAGE_V = 230;

export interface ChargerLimits {
  /** Owner's minimum, >= 6 (IEC 61851: 6 A is the lowest a car accepts); lower is read as 6. */
  minCurrentA: number;
  /** Owner's maximum, <= the charger's rating. */
  maxCurrentA: number;
  /** Phases wired/selected now. */
  phases: 1 | 3;
  /** The charger switches 1p/3p itself. */
  canSwitchPhases: boolean;
  /** Per phase; DEFAULT_VOLTAGE_V (230) when unknown. */
  voltage: number;
}

export interface SiteNow {
  /** + import, - export (the site's total/grid_power); NaN when unknown: then there is no surplus. */
  gridPowerW: number;
  /** + charging, - discharging (total/battery_power). */
  batteryPowerW: number;
  /** This charger's measured power now. */
  chargerPowerW: number;
  /** Home battery %, when known. */
  batterySoc?: number;
}

/** The timings and thresholds of the rules; every field has a default in DEFAULT_RULE_SETTINGS. */
export interface RuleSettings {
  /** Surplus must last this long before a start (evcc `enable.delay`, 1 min). */
  enableDelayMs: number;
  /** Surplus must be missing this long before a stop (evcc `disable.delay`, 3 min). */
  disableDelayMs: number;
  /** A started charge runs at least this long, whatever the surplus does. */
  minRunMs: number;
  /** A pause lasts at least this long before the next start. */
  minPauseMs: number;
  /** Surplus for three phases must last this long before 1p -> 3p (evcc: the enable delay). */
  phaseUpDelayMs: number;
  /** Three phases must not fit this long before 3p -> 1p (evcc: the disable delay). */
  phaseDownDelayMs: number;
  /** At least this long between two phase switches while charging. */
  minPhaseIntervalMs: number;
  /** The current rises one step only when the surplus carries this much more than the next step. */
  deadbandA: number;
  /** A charging home battery's power counts as surplus at or above this SoC; null: never. */
  batteryPrioritySoc: number | null;
  /** With allowBatteryToCar: the battery feeds the car only above this SoC (evcc's `bufferSoc`); 0: down to its own reserve. */
  batteryToCarMinSoc: number;
}

export const DEFAULT_RULE_SETTINGS: Readonly<RuleSettings> = Object.freeze({
  enableDelayMs: 60_000,
  disableDelayMs: 180_000,
  minRunMs: 300_000,
  minPauseMs: 300_000,
  phaseUpDelayMs: 60_000,
  phaseDownDelayMs: 180_000,
  minPhaseIntervalMs: 300_000,
  deadbandA: 0.25,
  batteryPrioritySoc: null,
  batteryToCarMinSoc: 0,
});

export interface RuleInputs {
  /** ms since the epoch. */
  now: number;
  mode: ChargeMode;
  limits: ChargerLimits;
  site: SiteNow;
  /** A car is plugged (OCPP status Preparing/Charging/SuspendedEV/SuspendedEVSE/Finishing). */
  connected: boolean;
  /** Owner allows the home battery to discharge into the car. */
  allowBatteryToCar: boolean;
  /** Mode 'planned': the planner's power for this quarter (null: no plan). */
  plannedPowerW: number | null;
  /** Overrides of DEFAULT_RULE_SETTINGS (optional). */
  settings?: Partial<RuleSettings>;
}

export interface Decision {
  /** Per phase; 0 = pause charging (no current offered). */
  currentA: number;
  phases: 1 | 3;
  /** Words for the owner: "PV surplus 2.1 kW: 9 A on 1 phase". */
  reason: string;
  /** Pass back next time (timers, last switch times). */
  state: RuleState;
  /** The home battery should not discharge now (battery control `hold`): the car draws and the owner did not allow battery-to-car. */
  holdHomeBattery: boolean;
  /** The surplus the rules saw, in W (for display and tests); null in modes that do not use it. */
  surplusW: number | null;
}

/** Opaque to the caller: pass the last decision's state back, INITIAL_RULE_STATE the first time. */
export interface RuleState {
  readonly mode: ChargeMode | null;
  readonly charging: boolean;
  readonly currentA: number;
  /** Phases last decided (null: take the charger's). */
  readonly phases: 1 | 3 | null;
  readonly startedAt: number | null;
  readonly stoppedAt: number | null;
  readonly phaseSwitchedAt: number | null;
  /** Enable or disable countdown of the surplus. */
  readonly pvTimer: { readonly kind: 'enable' | 'disable'; readonly since: number } | null;
  readonly phaseTimer: { readonly to: 1 | 3; readonly since: number } | null;
}

export const INITIAL_RULE_STATE: RuleState = Object.freeze({
  mode: null,
  charging: false,
  currentA: 0,
  phases: null,
  startedAt: null,
  stoppedAt: null,
  phaseSwitchedAt: null,
  pvTimer: null,
  phaseTimer: null,
});

/** Per-phase current for a total power: powerW / (phases x voltage). Not rounded. */
export function powerToCurrent(powerW: number, phases: 1 | 3, voltage = DEFAULT_VOLTAGE_V): number {
  return powerW / (phases * voltage);
}

/** Total power for a per-phase current: currentA x phases x voltage. */
export function currentToPower(currentA: number, phases: 1 | 3, voltage = DEFAULT_VOLTAGE_V): number {
  return currentA * phases * voltage;
}

/**
 * The power the car may take from the sun now, in W: export, plus what this charger draws,
 * minus a discharging home battery (unless allowed), plus a charging one at or above its
 * priority SoC.
 */
export function surplusPower(
  site: SiteNow,
  allowBatteryToCar: boolean,
  batteryPrioritySoc: number | null = null,
): number {
  let surplus = -site.gridPowerW + site.chargerPowerW;
  if (site.batteryPowerW < 0 && !allowBatteryToCar) surplus += site.batteryPowerW;
  if (
    site.batteryPowerW > 0 &&
    batteryPrioritySoc !== null &&
    site.batterySoc !== undefined &&
    site.batterySoc >= batteryPrioritySoc
  ) {
    surplus += site.batteryPowerW;
  }
  return Number.isFinite(surplus) ? surplus : Number.NEGATIVE_INFINITY;
}

interface Ctx {
  readonly now: number;
  readonly s: RuleSettings;
  readonly minA: number;
  readonly maxA: number;
  readonly voltage: number;
  readonly canSwitch: boolean;
  readonly fixedPhases: 1 | 3;
  readonly allowBattery: boolean;
}

interface Outcome {
  currentA: number;
  phases: 1 | 3;
  reason: string;
  state: RuleState;
  surplusW: number | null;
}

export function decide(inputs: RuleInputs, state: RuleState): Decision {
  const s: RuleSettings = { ...DEFAULT_RULE_SETTINGS, ...inputs.settings };
  const { limits } = inputs;
  const voltage = limits.voltage > 0 && Number.isFinite(limits.voltage) ? limits.voltage : DEFAULT_VOLTAGE_V;
  const c: Ctx = {
    now: inputs.now,
    s,
    minA: Math.max(IEC_MIN_CURRENT_A, Math.ceil(limits.minCurrentA)),
    maxA: Math.floor(limits.maxCurrentA),
    voltage,
    canSwitch: limits.canSwitchPhases,
    fixedPhases: limits.phases,
    allowBattery: batteryMayFeedCar(inputs.allowBatteryToCar, inputs.site.batterySoc, s.batteryToCarMinSoc),
  };
  // Timers belong to the mode that started them.
  const st: RuleState =
    state.mode === inputs.mode ? state : { ...state, mode: inputs.mode, pvTimer: null, phaseTimer: null };
  const out = decideMode(inputs, st, c);
  return { ...out, holdHomeBattery: out.currentA > 0 && !c.allowBattery };
}

/** The owner's allowance, within the SoC floor for it (an unknown SoC is below any floor). */
export function batteryMayFeedCar(allowBatteryToCar: boolean, batterySoc: number | undefined, minSoc: number): boolean {
  if (!allowBatteryToCar) return false;
  if (minSoc <= 0) return true;
  return batterySoc !== undefined && batterySoc > minSoc;
}

function decideMode(inputs: RuleInputs, st: RuleState, c: Ctx): Outcome {
  if (!inputs.connected) return stopNow(st, c, 'no car plugged in');
  if (inputs.mode === 'off') return stopNow(st, c, 'mode off');
  if (!(c.maxA >= c.minA)) {
    return stopNow(st, c, `charger limits: maximum ${c.maxA} A is below the minimum ${c.minA} A; set them apart`);
  }
  const surplus = (): number => surplusPower(inputs.site, c.allowBattery, c.s.batteryPrioritySoc);
  switch (inputs.mode) {
    case 'now':
      return now(st, c);
    case 'pv':
      return pv(st, c, surplus());
    case 'min+pv':
      return minPv(st, c, surplus(), '');
    case 'planned':
      return inputs.plannedPowerW === null || !Number.isFinite(inputs.plannedPowerW)
        ? minPv(st, c, surplus(), 'no plan for this quarter, charging as min+pv: ')
        : planned(st, c, inputs.plannedPowerW);
  }
}

function now(st: RuleState, c: Ctx): Outcome {
  const want = c.canSwitch ? 3 : c.fixedPhases;
  if (!st.charging) return start(st, c, want, c.maxA, `now: ${c.maxA} A on ${phaseWords(want)}`, null);
  const ph = phaseStep(st, c, want, 0);
  return run(ph.st, c, ph.phases, c.maxA, `now: ${c.maxA} A on ${phaseWords(ph.phases)}${ph.note}`, null);
}

function pv(st: RuleState, c: Ctx, surplus: number): Outcome {
  const lowest = c.canSwitch ? 1 : c.fixedPhases;
  const kw = `PV surplus ${kW(surplus)}`;
  if (!st.charging) {
    const want = startPhases(c, surplus);
    const needed = currentToPower(c.minA, lowest, c.voltage);
    if (surplus < needed) {
      return stay(
        { ...st, pvTimer: null },
        c,
        `${kw}, ${kW(needed)} needed to start on ${phaseWords(lowest)}`,
        surplus,
      );
    }
    const timer = st.pvTimer?.kind === 'enable' ? st.pvTimer : { kind: 'enable' as const, since: c.now };
    const left = c.s.enableDelayMs - (c.now - timer.since);
    if (left > 0)
      return stay({ ...st, pvTimer: timer }, c, `${kw}: starting in ${duration(left)} if it lasts`, surplus);
    const current = follow(0, powerToCurrent(surplus, want, c.voltage), c);
    return start({ ...st, pvTimer: timer }, c, want, current, `${kw}: ${current} A on ${phaseWords(want)}`, surplus);
  }
  // Charging. Too little even for the lowest phase count: count down to a stop, holding the minimum.
  if (surplus < currentToPower(c.minA, lowest, c.voltage)) {
    const timer = st.pvTimer?.kind === 'disable' ? st.pvTimer : { kind: 'disable' as const, since: c.now };
    const left = c.s.disableDelayMs - (c.now - timer.since);
    const phases = st.phases ?? c.fixedPhases;
    const held = { ...st, pvTimer: timer, phaseTimer: null };
    if (left > 0) {
      const why = `${kw} below ${c.minA} A: waiting ${duration(left)} before stopping, ${c.minA} A on ${phaseWords(phases)} meanwhile`;
      return run(held, c, phases, c.minA, why, surplus);
    }
    return stopGuarded(held, c, `${kw} below ${c.minA} A for ${duration(c.s.disableDelayMs)}`, surplus);
  }
  const ph = phaseStep({ ...st, pvTimer: null }, c, wantedPhases(st, c, surplus), phaseDelay(st, c, surplus));
  const current = follow(ph.switched ? 0 : st.currentA, powerToCurrent(surplus, ph.phases, c.voltage), c);
  return run(ph.st, c, ph.phases, current, `${kw}: ${current} A on ${phaseWords(ph.phases)}${ph.note}`, surplus);
}

function minPv(st: RuleState, c: Ctx, surplus: number, prefix: string): Outcome {
  const kw = `PV surplus ${kW(surplus)}`;
  if (!st.charging) {
    const want = startPhases(c, surplus);
    const current = follow(0, powerToCurrent(surplus, want, c.voltage), c);
    const why = `${prefix}${kw}: ${current} A on ${phaseWords(want)}${topUp(c, surplus, current, want)}`;
    return start(st, c, want, current, why, surplus);
  }
  const ph = phaseStep({ ...st, pvTimer: null }, c, wantedPhases(st, c, surplus), phaseDelay(st, c, surplus));
  const current = follow(ph.switched ? 0 : st.currentA, powerToCurrent(surplus, ph.phases, c.voltage), c);
  const why = `${prefix}${kw}: ${current} A on ${phaseWords(ph.phases)}${topUp(c, surplus, current, ph.phases)}${ph.note}`;
  return run(ph.st, c, ph.phases, current, why, surplus);
}

function topUp(c: Ctx, surplus: number, currentA: number, phases: 1 | 3): string {
  return surplus < currentToPower(currentA, phases, c.voltage) ? ', the grid tops up' : '';
}

// The plan is already a quarter-hour step, so the surplus delays (which filter noisy readings)
// would only add lag; the contactor's minimum run and pause and the phase interval still hold.
function planned(st: RuleState, c: Ctx, powerW: number): Outcome {
  const want = c.canSwitch ? (powerW >= currentToPower(c.minA, 3, c.voltage) ? 3 : 1) : c.fixedPhases;
  const planWords = `plan ${kW(powerW)}`;
  if (!st.charging) {
    const current = planCurrent(c, powerW, want);
    if (current === 0)
      return stay(
        st,
        c,
        `${planWords}: below the ${kW(currentToPower(c.minA, want, c.voltage))} minimum, paused`,
        null,
      );
    return start(st, c, want, current, `${planWords}: ${current} A on ${phaseWords(want)}`, null);
  }
  const ph = phaseStep(st, c, want, 0);
  const current = planCurrent(c, powerW, ph.phases);
  if (current === 0) return stopGuarded(ph.st, c, `${planWords}: below the minimum`, null);
  return run(ph.st, c, ph.phases, current, `${planWords}: ${current} A on ${phaseWords(ph.phases)}${ph.note}`, null);
}

function planCurrent(c: Ctx, powerW: number, phases: 1 | 3): number {
  const a = Math.min(Math.floor(powerToCurrent(powerW, phases, c.voltage)), c.maxA);
  return a >= c.minA ? a : 0;
}

/** Phases to start on: three when the surplus carries three at the minimum, else one. */
function startPhases(c: Ctx, surplus: number): 1 | 3 {
  if (!c.canSwitch) return c.fixedPhases;
  return surplus >= currentToPower(c.minA, 3, c.voltage) ? 3 : 1;
}

/** While charging on a switching charger: the phases the surplus asks for, null to stay. */
function wantedPhases(st: RuleState, c: Ctx, surplus: number): 1 | 3 | null {
  if (!c.canSwitch) return c.fixedPhases;
  const phases = st.phases ?? c.fixedPhases;
  const threeAtMin = currentToPower(c.minA, 3, c.voltage);
  if (phases === 3 && surplus < threeAtMin) return 1;
  if (phases === 1 && surplus >= threeAtMin && powerToCurrent(surplus, 1, c.voltage) > c.maxA) return 3;
  return null;
}

function phaseDelay(st: RuleState, c: Ctx, surplus: number): number {
  return wantedPhases(st, c, surplus) === 3 ? c.s.phaseUpDelayMs : c.s.phaseDownDelayMs;
}

interface PhaseStep {
  phases: 1 | 3;
  st: RuleState;
  switched: boolean;
  note: string;
}

/** While charging: switch to `want` once it has been wanted for `delayMs` and the last switch is `minPhaseIntervalMs` ago. */
function phaseStep(st: RuleState, c: Ctx, want: 1 | 3 | null, delayMs: number): PhaseStep {
  const phases = c.canSwitch ? (st.phases ?? c.fixedPhases) : c.fixedPhases;
  if (want === null || want === phases || !c.canSwitch) {
    return { phases, st: { ...st, phaseTimer: null }, switched: false, note: '' };
  }
  const timer = st.phaseTimer?.to === want ? st.phaseTimer : { to: want, since: c.now };
  const waitDelay = delayMs - (c.now - timer.since);
  const waitInterval = st.phaseSwitchedAt === null ? 0 : c.s.minPhaseIntervalMs - (c.now - st.phaseSwitchedAt);
  const left = Math.max(waitDelay, waitInterval);
  if (left > 0) {
    return {
      phases,
      st: { ...st, phaseTimer: timer },
      switched: false,
      note: ` (switching to ${phaseWords(want)} in ${duration(left)})`,
    };
  }
  const next = { ...st, phases: want, phaseTimer: null, phaseSwitchedAt: c.now };
  return { phases: want, st: next, switched: true, note: ` (switched to ${phaseWords(want)})` };
}

/** The next current for an ideal (unrounded) one: down at once, up one step only past the deadband, within min..max. */
function follow(previousA: number, idealA: number, c: Ctx): number {
  const target = Math.min(c.maxA, Math.max(c.minA, Math.floor(idealA)));
  if (previousA >= c.minA && previousA <= c.maxA && target > previousA && idealA < previousA + 1 + c.s.deadbandA) {
    return previousA;
  }
  return target;
}

function start(
  st: RuleState,
  c: Ctx,
  phases: 1 | 3,
  currentA: number,
  reason: string,
  surplusW: number | null,
): Outcome {
  const rest = st.stoppedAt === null ? 0 : c.s.minPauseMs - (c.now - st.stoppedAt);
  if (rest > 0) {
    return stay(
      st,
      c,
      `${reason}: starting in ${duration(rest)} (the contactor rests ${duration(c.s.minPauseMs)} after a stop)`,
      surplusW,
    );
  }
  // Phases switch freely while nothing flows (evcc scales at once when not charging).
  const switched = c.canSwitch && phases !== (st.phases ?? c.fixedPhases);
  const next: RuleState = {
    ...st,
    charging: true,
    currentA,
    phases: c.canSwitch ? phases : c.fixedPhases,
    startedAt: c.now,
    pvTimer: null,
    phaseTimer: null,
    phaseSwitchedAt: switched ? c.now : st.phaseSwitchedAt,
  };
  return { currentA, phases: next.phases ?? c.fixedPhases, reason, state: next, surplusW };
}

function run(st: RuleState, c: Ctx, phases: 1 | 3, currentA: number, reason: string, surplusW: number | null): Outcome {
  return {
    currentA,
    phases,
    reason,
    state: { ...st, currentA, phases: c.canSwitch ? phases : c.fixedPhases },
    surplusW,
  };
}

function stay(st: RuleState, c: Ctx, reason: string, surplusW: number | null): Outcome {
  return {
    currentA: 0,
    phases: c.canSwitch ? (st.phases ?? c.fixedPhases) : c.fixedPhases,
    reason,
    state: st,
    surplusW,
  };
}

/** An automatic stop: only once the charge has run its minimum time; until then the minimum current. */
function stopGuarded(st: RuleState, c: Ctx, reason: string, surplusW: number | null): Outcome {
  const left = st.startedAt === null ? 0 : c.s.minRunMs - (c.now - st.startedAt);
  if (left > 0) {
    const phases = c.canSwitch ? (st.phases ?? c.fixedPhases) : c.fixedPhases;
    const why = `${reason}: stopping in ${duration(left)} (a charge runs at least ${duration(c.s.minRunMs)}), ${c.minA} A on ${phaseWords(phases)} meanwhile`;
    return run(st, c, phases, c.minA, why, surplusW);
  }
  return { ...stopNow(st, c, `${reason}: paused`), surplusW };
}

/** Off or unplugged: no current at once; a stop of a running charge starts the contactor's rest. */
function stopNow(st: RuleState, c: Ctx, reason: string): Outcome {
  const next: RuleState = {
    ...st,
    charging: false,
    currentA: 0,
    stoppedAt: st.charging ? c.now : st.stoppedAt,
    pvTimer: null,
    phaseTimer: null,
  };
  return {
    currentA: 0,
    phases: c.canSwitch ? (st.phases ?? c.fixedPhases) : c.fixedPhases,
    reason,
    state: next,
    surplusW: null,
  };
}

function phaseWords(phases: 1 | 3): string {
  return phases === 1 ? '1 phase' : '3 phases';
}

function kW(powerW: number): string {
  return Number.isFinite(powerW) ? `${(powerW / 1000).toFixed(1)} kW` : 'unknown';
}

function duration(ms: number): string {
  const total = Math.ceil(ms / 1000);
  const min = Math.floor(total / 60);
  const sec = total % 60;
  if (min === 0) return `${sec} s`;
  return sec === 0 ? `${min} min` : `${min} min ${sec} s`;
}
