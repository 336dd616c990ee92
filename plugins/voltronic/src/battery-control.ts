/*
 * Battery control on a Voltronic / Axpert (PI30) through its priorities: output source
 * priority (POP) decides whether the battery feeds the load, charger source priority (PCP)
 * whether the utility charges it, and the max utility charging current (MUCHGC) how fast.
 * The device knows no target SOC: the driver watches the SOC at each poll and ends grid
 * charging (PCP03, only solar) once the target is reached.
 */
import {
  batteryControl,
  type batteryConfigSchema,
  type BatteryCommand,
  type BatteryControl,
  type PluginStore,
  type z,
} from '@heliograph/plugins-sdk';
import type { Pi30Client } from './client.js';

/** Utility charging currents until the device's own list (QMUCHGCR) is read. */
const DEFAULT_UTILITY_CURRENTS = [2, 10, 20, 30, 40, 50, 60];
/** PI30 commands for each mode (POP: 0 utility first, 2 SBU; PCP: 2 solar and utility, 3 only solar). */
const COMMANDS = {
  normal: ['POP02', 'PCP03'],
  hold: ['POP00', 'PCP03'],
  charge: ['POP00', 'PCP02'],
} as const;

/**
 * The largest utility current whose power (at `voltage`) stays within `powerW`; the smallest
 * the device offers when even that is more.
 *
 * @example
 * utilityCurrent(1500, 52, [2, 10, 20, 30, 40]); // 20
 */
export function utilityCurrent(powerW: number, voltage: number, currents: readonly number[]): number {
  const sorted = [...currents].sort((a, b) => a - b);
  const fitting = sorted.filter((a) => a * voltage <= powerW);
  return fitting.at(-1) ?? sorted[0]!;
}

export interface VoltronicBatteryControl {
  control: BatteryControl;
  /** After each poll: ends grid charging at the target. */
  afterPoll(args: { soc: number; voltage: number; signal: AbortSignal }): Promise<void>;
}

export function voltronicBatteryControl(args: {
  client: Pi30Client;
  battery: z.output<typeof batteryConfigSchema>;
  log: (message: string) => void;
  /** Keeps the command in force across restarts, so a charge still ends at its target. */
  store: PluginStore;
  initial: BatteryCommand | undefined;
}): VoltronicBatteryControl {
  const { client, battery } = args;
  let currents: number[] | null = null;
  let last = { soc: NaN, voltage: 48 };
  /** Whether the charge command in force has reached its target (and grid charging was ended). */
  let reached = false;

  const utilityCurrents = async (signal: AbortSignal): Promise<number[]> => {
    if (currents) return currents;
    const reply = await client.ask('QMUCHGCR', signal);
    const listed = reply.replace(/^\(/, '').trim().split(/\s+/).map(Number);
    currents = reply !== '(NAK' && listed.every(Number.isInteger) ? listed : DEFAULT_UTILITY_CURRENTS;
    return currents;
  };

  const control = batteryControl({
    limits: { ...battery, modes: ['normal', 'hold', 'charge'] },
    store: args.store,
    initial: args.initial,
    apply: async ({ command, signal }) => {
      reached = false;
      if (command.mode === 'charge') {
        const amps = utilityCurrent(command.powerW, last.voltage, await utilityCurrents(signal));
        await client.set(`MUCHGC${String(amps).padStart(3, '0')}`, signal);
      }
      const mode = command.mode === 'discharge' ? 'normal' : command.mode;
      for (const setting of COMMANDS[mode]) await client.set(setting, signal);
      if (command.mode === 'charge' && last.soc >= command.targetSoc) {
        await client.set('PCP03', signal);
        reached = true;
      }
    },
  });

  return {
    control,
    async afterPoll({ soc, voltage, signal }) {
      last = { soc, voltage: voltage > 0 ? voltage : last.voltage };
      const command = control.current();
      if (command.mode !== 'charge' || reached || soc < command.targetSoc) return;
      await client.set('PCP03', signal);
      reached = true;
      args.log(`battery at ${soc} %, the charge target ${command.targetSoc} %: grid charging ended, holding`);
    },
  };
}
