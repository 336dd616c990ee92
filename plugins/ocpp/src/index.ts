/**
 * EV chargers over OCPP 1.6J: a central system on the service's own port (or one of its own),
 * each configured charger a `charger_N` device whose mode (off, now, min+pv, pv, planned) the
 * charging rules turn into charging profiles that end by themselves (a lease on the charger).
 * While a car draws, the home battery is held out of it unless its owner allows it
 * (battery-hold.ts); `demoChargePoint` runs the demo's emulated charger in-process (demo.ts).
 * See README.md.
 */
import { ConfigError, definePlugin } from '@heliograph/plugins-sdk';
import { CentralSystem } from './central-system.js';
import { ChargerDevice } from './charger-device.js';
import { configSchema, type ChargerConfig } from './config.js';
import { HomeBatteryHold } from './battery-hold.js';
import { DemoChargePoint, demoChargerConfig, demoOwnerDefaults } from './demo.js';

export { configSchema, type OcppConfig, type ChargerConfig } from './config.js';
export { CHARGE_MODES, type ChargeMode } from './charging-rules.js';

const SITE_TOPICS = ['total/grid_power', 'total/battery_power', 'total/battery_state_of_charge'];

export default definePlugin({
  id: 'ocpp',
  configSchema,
  async setup(ctx, config) {
    const seen = new Map<string, string>();
    const hold = new HomeBatteryHold(ctx);
    const needHold = () => hold.update(chargers.some((c) => c.needsBatteryHold()));
    // The demo's charger is the first device; it needs no entry (its password is made here).
    const demo = config.demoChargePoint ? ctx.devices[0]?.id : undefined;
    const chargers = ctx.devices.map((device) => {
      const entry = (config.chargers as Record<string, ChargerConfig | undefined>)[device.id];
      const charger = entry ?? (device.id === demo ? demoChargerConfig() : undefined);
      if (!charger)
        throw new ConfigError(
          `${device.id} has no entry in "chargers": add "${device.id}": { "chargePointId", "password" }`,
        );
      const twin = seen.get(charger.chargePointId);
      if (twin) throw new ConfigError(`${device.id} and ${twin} both have charge point id "${charger.chargePointId}"`);
      seen.set(charger.chargePointId, device.id);
      return new ChargerDevice(ctx, device, charger, config, {
        ...(device.id === demo ? { defaults: demoOwnerDefaults(config) } : {}),
        onChange: needHold,
        batteryNote: () => hold.note(),
      });
    });
    for (const charger of chargers) await charger.start();

    const central = new CentralSystem(chargers, { path: config.path, log: ctx.log });
    if (config.port === null) ctx.integration.acceptUpgrades({ prefix: config.path, handler: central.handleUpgrade });
    else await central.listen(config.port, config.host);
    const demoCar = demo ? await DemoChargePoint.start(ctx, central, chargers[0]!.charger, config) : null;

    ctx.site.subscribe({
      filter: SITE_TOPICS,
      onValues: (values) => {
        for (const charger of chargers) charger.siteValues(values);
      },
    });
    // The rules' timers (start and stop delays) and the silence check run on the clock too.
    ctx.scheduler.every({
      name: 'rules',
      intervalMs: Math.max(1_000, config.decideIntervalMs),
      run: () => {
        demoCar?.check();
        for (const charger of chargers) charger.changed();
        needHold();
      },
    });

    return async () => {
      // A stop puts each charger back on its own default and a held battery back to Normal
      // before the connections close (the host stops a battery's controller while the
      // battery's driver still runs).
      for (const charger of chargers) {
        if (!charger.link.state.online) continue;
        try {
          await ctx.site.write({ topic: `${charger.device.id}/clear_profiles`, value: 'Clear' });
        } catch (err) {
          ctx.log.warn(`${charger.device.id}: clearing its profiles at the stop failed: ${(err as Error).message}`);
        }
      }
      await hold.stop();
      for (const charger of chargers) await charger.stop();
      await demoCar?.close();
      await central.close();
    };
  },
});
