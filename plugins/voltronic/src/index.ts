/* eslint-disable max-lines-per-function -- the plugin's setup (or its model's step) in one closure, as written before the limit */
/**
 * The Voltronic / Axpert driver (PI30 protocol) over a serial port or a TCP serial bridge:
 * polls QPIGS, QMOD and QPIRI every `pollIntervalMs`, identifies the inverter with QID and
 * QVFW, and writes output source priority (POP), charger priority (PCP) and the max charge
 * current (MCHGC, from the currents QMCHGCR lists). With `battery` configured it offers
 * battery control (battery-control.ts). With a battery device listed
 * (`["inverter_1", "battery_1"]`) the battery's QPIGS values are published on it too.
 */
import {
  batteryConfigSchema,
  batteryMetrics,
  ConfigError,
  definePlugin,
  inverterMetrics,
  loadBatteryCommand,
  NoAnswerError,
  pvStringMetrics,
  z,
  type MetricDeclaration,
  type SettingOption,
} from '@heliograph/plugins-sdk';
import { openStreamLink, pollingFields, streamConnectionSchema } from '@heliograph/plugins-sdk/connections';
import { voltronicBatteryControl } from './battery-control.js';
import { Pi30Client } from './client.js';
import { batteryValues, chargeCurrents, gridPower, qmodMode, qpigsValues, qpiriSettings } from './qpigs.js';

const configSchema = z.strictObject({
  connection: streamConnectionSchema,
  ...pollingFields,
  battery: batteryConfigSchema.optional(),
});

const OUTPUT_PRIORITIES: SettingOption<number>[] = [
  { value: 0, label: 'Utility first' },
  { value: 1, label: 'Solar first' },
  { value: 2, label: 'SBU priority' },
];
const CHARGER_PRIORITIES: SettingOption<number>[] = [
  { value: 0, label: 'Utility first' },
  { value: 1, label: 'Solar first' },
  { value: 2, label: 'Solar and utility' },
  { value: 3, label: 'Only solar' },
];
/** Max charge currents until the device's own list (QMCHGCR) is read: the common Axpert set. */
const DEFAULT_CHARGE_CURRENTS = [10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120];

const currentOptions = (currents: number[]): SettingOption<number>[] =>
  currents.map((a) => ({ value: a, label: String(a) }));
const labelOf = (options: SettingOption<number>[], value: number): string =>
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
    const { connection } = config;
    const link = openStreamLink(connection);
    const client = new Pi30Client(link, config.timeoutMs);
    let identified = false;
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
      ? voltronicBatteryControl({
          client,
          battery: config.battery,
          log: (m) => ctx.log.info(`${device}: ${m}`),
          store: ctx.store,
          initial: await loadBatteryCommand(ctx.store),
        })
      : null;

    ctx.topics.declare({
      device,
      pollIntervalMs: config.pollIntervalMs,
      metrics: [...metrics, ...(control?.control.metrics ?? [])],
      settings: [
        ...(control?.control.settings ?? []),
        {
          name: 'output_source_priority',
          displayName: 'Output source priority',
          options: OUTPUT_PRIORITIES,
          write: ({ value, signal }) => client.set(`POP0${value}`, signal),
        },
        {
          name: 'charger_source_priority',
          displayName: 'Charger source priority',
          options: CHARGER_PRIORITIES,
          write: ({ value, signal }) => client.set(`PCP0${value}`, signal),
        },
        {
          name: 'max_charge_current',
          displayName: 'Max charge current',
          unit: 'A',
          deviceClass: 'current',
          options: currentOptions(DEFAULT_CHARGE_CURRENTS),
          write: ({ value, signal }) => client.set(`MCHGC${String(value).padStart(3, '0')}`, signal),
        },
      ],
    });

    if (battery)
      ctx.topics.declare({
        device: battery,
        pollIntervalMs: config.pollIntervalMs,
        metrics: [batteryMetrics.voltage, batteryMetrics.current, batteryMetrics.power, batteryMetrics.state_of_charge],
      });

    /** A query the device may not know: its answer, or undefined on `(NAK`. */
    const askOptional = async (command: string, signal: AbortSignal) => {
      const reply = await client.ask(command, signal);
      return reply === '(NAK' ? undefined : reply;
    };

    /** Serial, firmware and the device's list of charge currents, read once. */
    const identify = async (signal: AbortSignal) => {
      const serial = await askOptional('QID', signal);
      const firmware = await askOptional('QVFW', signal);
      ctx.topics.identify({
        device,
        identity: {
          ...(serial && { serial: serial.slice(1) }),
          ...(firmware && { firmware: firmware.replace(/^\(VERFW:/, '').replace(/^\(/, '') }),
        },
      });
      const currents = await askOptional('QMCHGCR', signal);
      if (currents)
        ctx.topics.updateSetting({
          device,
          name: 'max_charge_current',
          options: currentOptions(chargeCurrents(currents)),
        });
      identified = true;
    };

    const poll = async (signal: AbortSignal) => {
      if (!identified) await identify(signal);
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
          charger_source_priority: labelOf(CHARGER_PRIORITIES, settings.chargerPriority),
          max_charge_current: String(settings.maxChargeCurrent),
          ...control?.control.info,
        },
      });
      if (battery) ctx.topics.publish({ device: battery, values: batteryValues(qpigs) });
      await control?.afterPoll({
        soc: Number(status.battery_state_of_charge),
        voltage: Number(status.battery_voltage),
        signal,
      });
    };

    ctx.scheduler.every({
      name: 'poll',
      intervalMs: config.pollIntervalMs,
      run: async ({ signal }) => {
        try {
          await poll(signal);
        } catch (error) {
          if (signal.aborted) throw error;
          if (error instanceof NoAnswerError) {
            for (const id of devices) ctx.topics.markUnavailable({ device: id, reason: error.message });
            throw new NoAnswerError({ message: `${devices.join(', ')}: ${error.message}`, timeoutMs: error.timeoutMs });
          }
          throw new Error(`${devices.join(', ')}: ${error instanceof Error ? error.message : String(error)}`, {
            cause: error,
          });
        } finally {
          if (link.stats.badFrames > badFrames) {
            ctx.log.warn(`${device}: skipped ${link.stats.badFrames - badFrames} replies with a wrong CRC`);
            badFrames = link.stats.badFrames;
          }
        }
      },
    });

    return () => {
      offDisconnect();
      offConnect();
      link.release();
    };
  },
});
