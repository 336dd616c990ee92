/**
 * The battery planner: a cost-minimising charge/hold/discharge schedule over the next 36-48
 * hours from the price book, the PV forecast and a load forecast learnt from history, solved
 * as a linear program (HiGHS). In `dry-run` (the default) it plans and shows; in `active` it
 * writes the controlled device's `battery_control_*` settings through the audited write path.
 */
import { definePlugin } from '@heliograph/plugins-sdk';
import { configSchema, PLANNER_MODES, type PlannerMode } from './config.js';
import { Controller } from './controller.js';
import { findDevice } from './inputs.js';

const MODE_KEY = 'mode';

export { configSchema } from './config.js';

export default definePlugin({
  id: 'planner',
  configSchema,
  async setup(ctx, config) {
    const stored = await ctx.store.get(MODE_KEY);
    const mode: PlannerMode = PLANNER_MODES.includes(stored as PlannerMode) ? (stored as PlannerMode) : config.mode;
    // Its own device (manifest kind `planner`, plugins.json `planner_1`) carries its topics.
    const device = ctx.devices[0]?.id ?? 'planner_1';
    let stopped = false;
    const publish = (values: Record<string, string | number | null>) => {
      // After the stop the device is undeclared: the last status has nowhere to go.
      if (!stopped) ctx.topics.publish({ device, values });
    };
    const controller = new Controller(ctx, config, { publish }, mode);
    controller.outDevice = device;

    const text = (name: string, displayName: string) => ({
      name,
      displayName,
      type: 'string' as const,
      recorded: false,
    });
    const number = (name: string, displayName: string, unit: string) => ({ name, displayName, unit, recorded: false });
    ctx.topics.declare({
      device,
      pollIntervalMs: 15 * 60_000,
      metrics: [
        text('status', 'Planner status'),
        text('planned_mode', 'Planned mode'),
        number('planned_power', 'Planned power', 'W'),
        number('planned_target_soc', 'Planned target SOC', '%'),
        text('reason', 'Reason'),
        text('next_action', 'Next action'),
        text('next_action_at', 'Next action at'),
        number('saving_today', 'Estimated saving today', ''),
        number('saving_planned', 'Estimated saving over the plan', ''),
        number('load_forecast_error', 'Load forecast error (MAE)', 'W'),
        text('pv_calibration', 'PV forecast calibration (factor per hour)'),
        number('pv_forecast_error_raw', 'PV forecast error, provider (MAE)', 'W'),
        number('pv_forecast_error', 'PV forecast error, calibrated (MAE)', 'W'),
        number('solve_time', 'Solve time', 'ms'),
        text('car_plan', 'Car charging plan'),
      ],
      settings: [
        {
          name: 'mode',
          displayName: 'Planner mode',
          options: PLANNER_MODES,
          initial: mode,
          // Kept once the switch took: a switch to active refused (another controller) is not.
          write: async ({ value }) => {
            await controller.setMode(value as PlannerMode);
            await ctx.store.set(MODE_KEY, value);
          },
        },
      ],
    });
    ctx.topics.publish({ device, values: { status: `${mode}: starting` } });

    const watched = await findDevice(ctx, config).catch(() => null);
    const filter = watched ? `${watched}/battery_control_*` : '*/battery_control_*';
    ctx.site.onWrite({ filter, handler: (write) => controller.onWrite(write, 'planner') });
    // The state of charge and the battery's availability: a move off plan is seen at once.
    let lastSoc: number | null = null;
    ctx.site.subscribe({
      filter: ['total/battery_state_of_charge', watched ? `${watched}/battery_control_mode` : '*/battery_control_mode'],
      onValues: (values) => {
        const soc = values['total/battery_state_of_charge'];
        const unavailable = Object.entries(values).some(([k, v]) => k.endsWith('/battery_control_mode') && v === null);
        if (unavailable || (typeof soc === 'number' && (lastSoc === null || Math.abs(soc - lastSoc) >= 1))) {
          if (typeof soc === 'number') lastSoc = soc;
          void controller.check('the site changed');
        }
      },
    });
    // A car plugged in or out, or its charger's plan target changed: planned at once.
    ctx.site.subscribe({
      filter: ['*/car_connected', '*/plan_energy', '*/plan_soc', '*/plan_deadline'],
      onValues: () => void controller.check('a charger changed'),
    });
    ctx.scheduler.every({ name: 'plan', intervalMs: config.checkIntervalMs, run: () => controller.check() });
    // Awaited by the host before it stops the drivers: the battery is back to Normal first.
    return async () => {
      await controller.stop();
      stopped = true;
    };
  },
});
