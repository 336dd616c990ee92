/**
 * EV chargers over OCPP 1.6J: a central system on the service's own port (or one of its own),
 * each configured charger a `charger_N` device whose mode (off, now, min+pv, pv, planned) the
 * charging rules turn into charging profiles that end by themselves (a lease on the charger).
 * See README.md.
 */
import { ConfigError, definePlugin } from '@heliograph/plugins-sdk';
import { CentralSystem } from './central-system.js';
import { ChargerDevice } from './charger-device.js';
import { configSchema, type ChargerConfig } from './config.js';

export { configSchema, type OcppConfig, type ChargerConfig } from './config.js';
export { CHARGE_MODES, type ChargeMode } from './charging-rules.js';

const SITE_TOPICS = ['total/grid_power', 'total/battery_power', 'total/battery_state_of_charge'];

export default definePlugin({
  id: 'ocpp',
  configSchema,
  async setup(ctx, config) {
    const seen = new Map<string, string>();
    const chargers = ctx.devices.map((device) => {
      const charger = (config.chargers as Record<string, ChargerConfig | undefined>)[device.id];
      if (!charger)
        throw new ConfigError(
          `${device.id} has no entry in "chargers": add "${device.id}": { "chargePointId", "password" }`,
        );
      const twin = seen.get(charger.chargePointId);
      if (twin) throw new ConfigError(`${device.id} and ${twin} both have charge point id "${charger.chargePointId}"`);
      seen.set(charger.chargePointId, device.id);
      return new ChargerDevice(ctx, device, charger, config);
    });
    for (const charger of chargers) await charger.start();

    const central = new CentralSystem(chargers, { path: config.path, log: ctx.log });
    if (config.port === null) ctx.integration.acceptUpgrades({ prefix: config.path, handler: central.handleUpgrade });
    else await central.listen(config.port, config.host);

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
        for (const charger of chargers) charger.changed();
      },
    });

    return async () => {
      // A stop puts each charger back on its own default before the connection closes.
      for (const charger of chargers) {
        if (!charger.link.state.online) continue;
        try {
          await ctx.site.write({ topic: `${charger.device.id}/clear_profiles`, value: 'Clear' });
        } catch (err) {
          ctx.log.warn(`${charger.device.id}: clearing its profiles at the stop failed: ${(err as Error).message}`);
        }
      }
      for (const charger of chargers) await charger.stop();
      await central.close();
    };
  },
});
