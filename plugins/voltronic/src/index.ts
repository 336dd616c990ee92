/**
 * The Voltronic / Axpert driver (PI30 protocol) over a serial port or a TCP serial bridge:
 * polls QPIGS, QMOD and QPIRI every `pollIntervalMs`, identifies the inverter with QID and
 * QVFW, and writes output source priority (POP), charger priority (PCP) and the max charge
 * current (MCHGC below 100 A, MNCHGC from 100 A: models.ts; from the currents QMCHGCR lists). With `battery` configured it offers
 * battery control (battery-control.ts): it ends a forced command it finds in its first poll
 * and writes Normal at its stop. The charger priorities' numbers depend on the model, known
 * by QGMN (models.ts). With a battery device listed
 * (`["inverter_1", "battery_1"]`) the battery's QPIGS values are published on it too.
 */
import {
  batteryConfigSchema,
  batteryMetrics,
  ConfigError,
  definePlugin,
  DeviceRefusedError,
  inverterMetrics,
  loadBatteryCommand,
  NoAnswerError,
  pvStringMetrics,
  z,
  type MetricDeclaration,
  type PluginContext,
  type SettingDeclaration,
  type SettingOption,
} from '@heliograph/plugins-sdk';
import { openStreamLink, streamDeviceFields } from '@heliograph/plugins-sdk/connections';
import { VoltronicBatteryControl } from './battery-control.js';
import { Pi30Client } from './client.js';
import { chargerFamily, maxChargeCurrentCommands, PI30_CHARGER, type ChargerFamily } from './models.js';
import { batteryValues, chargeCurrents, gridPower, qmodMode, qpigsValues, qpiriSettings } from './qpigs.js';

const configSchema = z.strictObject({
  ...streamDeviceFields,
  battery: batteryConfigSchema.optional(),
});

const OUTPUT_PRIORITIES: SettingOption<number>[] = [
  { value: 0, label: 'Utility first' },
  { value: 1, label: 'Solar first' },
  { value: 2, label: 'SBU priority' },
];
/** Max charge currents until the device's own list (QMCHGCR) is read: the common Axpert set. */
const DEFAULT_CHARGE_CURRENTS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120];

const currentOptions = (currents: number[]): SettingOption<number>[] =>
  currents.map((a) => ({ value: a, label: String(a) }));
const labelOf = (options: ReadonlyArray<SettingOption<number>>, value: number): string =>
  options.find((o) => o.value === value)?.label ?? String(value);

const metrics: MetricDeclaration[] = [
  inverterMetrics.pv_power,
  ...pvStringMetrics(1),
  inverterMetrics.grid_power,
  inverterMetrics.load_power,
  inverterMetrics.battery_power,
  inverterMetrics.grid_voltage,
  inverterMetrics.grid_frequency,
  inverterMetrics.output_voltage,
  inverterMetrics.output_power,
  inverterMetrics.temperature,
  inverterMetrics.device_mode,
  { name: 'battery_voltage', displayName: 'Battery voltage', unit: 'V', deviceClass: 'voltage' },
  { name: 'battery_state_of_charge', displayName: 'Battery state of charge', unit: '%' },
];

/** The inverter's own settings: priorities and the max charge current, written as PI30 commands. */
const inverterSettings = (client: Pi30Client): SettingDeclaration[] => [
  {
    name: 'output_source_priority',
    displayName: 'Output source priority',
    options: OUTPUT_PRIORITIES,
    write: ({ value, signal }) => client.set(`POP0${value}`, signal),
  },
  {
    name: 'charger_source_priority',
    displayName: 'Charger source priority',
    // Until QGMN told the model (models.ts).
    options: PI30_CHARGER.options,
    write: ({ value, signal }) => client.set(`PCP0${value}`, signal),
  },
  {
    name: 'max_charge_current',
    displayName: 'Max charge current',
    unit: 'A',
    deviceClass: 'current',
    options: currentOptions(DEFAULT_CHARGE_CURRENTS),
    // In the form the model takes (models.ts).
    write: ({ value, signal }) => setFirstTaken(client, maxChargeCurrentCommands(Number(value)), signal),
  },
];

/** Sends `commands` in turn until the device takes one; throws the last refusal when it takes none. */
async function setFirstTaken(client: Pi30Client, commands: string[], signal: AbortSignal): Promise<void> {
  for (const [i, command] of commands.entries()) {
    try {
      await client.set(command, signal);
      return;
    } catch (err) {
      if (!(err instanceof DeviceRefusedError) || i === commands.length - 1) throw err;
    }
  }
}

/** A query the device may not know: its answer, or undefined on `(NAK`. */
const askOptional = async (client: Pi30Client, command: string, signal: AbortSignal) => {
  const reply = await client.ask(command, signal);
  return reply === '(NAK' ? undefined : reply;
};

/**
 * Serial, firmware, the device's list of charge currents and its model's charger priorities
 * (QGMN), read once.
 */
async function identify(
  ctx: PluginContext,
  client: Pi30Client,
  device: string,
  signal: AbortSignal,
): Promise<ChargerFamily> {
  const serial = await askOptional(client, 'QID', signal);
  const firmware = await askOptional(client, 'QVFW', signal);
  ctx.topics.identify({
    device,
    identity: {
      ...(serial && { serial: serial.slice(1) }),
      ...(firmware && { firmware: firmware.replace(/^\(VERFW:/, '').replace(/^\(/, '') }),
    },
  });
  const currents = await askOptional(client, 'QMCHGCR', signal);
  if (currents)
    ctx.topics.updateSetting({ device, name: 'max_charge_current', options: currentOptions(chargeCurrents(currents)) });
  const family = chargerFamily((await askOptional(client, 'QGMN', signal))?.slice(1));
  if (family !== PI30_CHARGER)
    ctx.topics.updateSetting({ device, name: 'charger_source_priority', options: family.options });
  return family;
}

/** One poll: QPIGS, QMOD and QPIRI, published on the inverter (and the battery, when listed). */
async function pollOnce(
  ctx: PluginContext,
  client: Pi30Client,
  {
    device,
    battery,
    control,
    family,
  }: { device: string; battery?: string; control: VoltronicBatteryControl | null; family: ChargerFamily },
  signal: AbortSignal,
): Promise<{ soc: number; voltage: number }> {
  const qpigs = await client.ask('QPIGS', signal);
  const status = qpigsValues(qpigs);
  const mode = qmodMode(await client.ask('QMOD', signal));
  const settings = qpiriSettings(await client.ask('QPIRI', signal));
  ctx.topics.publish({
    device,
    values: {
      ...status,
      grid_power: gridPower(status, mode),
      device_mode: mode,
      output_source_priority: labelOf(OUTPUT_PRIORITIES, settings.outputPriority),
      charger_source_priority: labelOf(family.options, settings.chargerPriority),
      max_charge_current: String(settings.maxChargeCurrent),
      ...control?.control.values(),
    },
  });
  if (battery) ctx.topics.publish({ device: battery, values: batteryValues(qpigs) });
  return { soc: Number(status.battery_state_of_charge), voltage: Number(status.battery_voltage) };
}

/** A failed poll's error, naming the devices; a silent device is unavailable at once. */
function pollFailure(ctx: PluginContext, devices: string[], error: unknown): Error {
  if (error instanceof NoAnswerError) {
    for (const id of devices) ctx.topics.markUnavailable({ device: id, reason: error.message });
    return new NoAnswerError({ message: `${devices.join(', ')}: ${error.message}`, timeoutMs: error.timeoutMs });
  }
  return new Error(`${devices.join(', ')}: ${error instanceof Error ? error.message : String(error)}`, {
    cause: error,
  });
}

export default definePlugin({
  id: 'voltronic',
  configSchema,
  async setup(ctx, config) {
    const inverters = ctx.devices.filter((d) => d.kind === 'inverter');
    const batteries = ctx.devices.filter((d) => d.kind === 'battery');
    if (inverters.length !== 1 || batteries.length > 1)
      throw new ConfigError(
        `a voltronic instance reads one inverter and at most its battery (["inverter_1"] or ["inverter_1", "battery_1"]), not ${JSON.stringify(ctx.devices.map((d) => d.id))}`,
      );
    const device = inverters[0]!.id;
    const battery = batteries[0]?.id;
    const devices = battery ? [device, battery] : [device];
    const link = openStreamLink(config.connection);
    const client = new Pi30Client(link, config.timeoutMs);
    /** The model's charger priorities, once QGMN was asked. */
    let family: ChargerFamily | null = null;
    let badFrames = link.stats.badFrames;

    // A lost connection (outside any poll): the device is gone until the link is back.
    // The link may be shared with other instances: its listeners go when this one stops.
    const offDisconnect = link.on('disconnect', (reason) => {
      for (const id of devices) ctx.topics.markUnavailable({ device: id, reason });
      ctx.status.error({ message: `${devices.join(', ')}: ${reason}` });
    });
    const offConnect = link.on('connect', () => ctx.status.ok());

    // Battery control through the priorities, when the battery is described.
    const control = config.battery
      ? new VoltronicBatteryControl({
          client,
          battery: config.battery,
          device,
          site: ctx.site,
          now: () => ctx.now(),
          log: (m) => ctx.log.info(`${device}: ${m}`),
          store: ctx.store,
          initial: await loadBatteryCommand(ctx.store),
        })
      : null;

    ctx.topics.declare({
      device,
      pollIntervalMs: config.pollIntervalMs,
      metrics: [...metrics, ...(control?.control.metrics ?? [])],
      settings: [...(control?.control.settings ?? []), ...inverterSettings(client)],
    });
    if (battery)
      ctx.topics.declare({
        device: battery,
        pollIntervalMs: config.pollIntervalMs,
        metrics: [batteryMetrics.voltage, batteryMetrics.current, batteryMetrics.power, batteryMetrics.state_of_charge],
      });

    ctx.scheduler.every({
      name: 'poll',
      intervalMs: config.pollIntervalMs,
      run: async ({ signal }) => {
        try {
          if (!family) {
            family = await identify(ctx, client, device, signal);
            control?.setFamily(family);
          }
          const readings = await pollOnce(ctx, client, { device, battery, control, family }, signal);
          await control?.startClean(signal);
          await control?.afterPoll({ ...readings, signal });
        } catch (error) {
          if (signal.aborted) throw error;
          throw pollFailure(ctx, devices, error);
        } finally {
          if (link.stats.badFrames > badFrames) {
            ctx.log.warn(`${device}: skipped ${link.stats.badFrames - badFrames} replies with a wrong CRC`);
            badFrames = link.stats.badFrames;
          }
        }
      },
    });

    // Normal written while the link is still open; a failure is in the audit and here.
    return async () => {
      await control
        ?.stopClean()
        .catch((err: unknown) =>
          ctx.log.warn(`${device}: could not set battery control to Normal at the stop`, { err }),
        );
      offDisconnect();
      offConnect();
      link.release();
    };
  },
});
