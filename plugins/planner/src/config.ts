import { z } from '@heliograph/plugins-sdk';

export const PLANNER_MODES = ['dry-run', 'active'] as const;
export type PlannerMode = (typeof PLANNER_MODES)[number];

export const configSchema = z.strictObject({
  mode: z
    .enum(PLANNER_MODES)
    .default('dry-run')
    .describe('dry-run plans and shows, writes nothing; active commands the battery. Also a writable setting.')
    .meta({ title: 'Mode at the first start' }),
  acceptUnboundedControl: z
    .boolean()
    .default(false)
    .describe(
      'Allow Charge and Discharge on a device that cannot end a forced command by itself (battery_control_lease 0): if Heliograph stops or crashes while it charges, the device keeps charging until someone intervenes.',
    )
    .meta({ title: 'Accept control without a lease on the device' }),
  device: z
    .string()
    .regex(/^[a-z0-9_]+$/)
    .optional()
    .describe('The device whose battery_control_* settings the planner writes; default: the first one offering them.')
    .meta({ title: 'Controlled device' }),
  reserveSoc: z
    .number()
    .min(0)
    .max(100)
    .default(20)
    .describe('Never planned below this state of charge (%).')
    .meta({ title: 'Reserve state of charge' }),
  maxSoc: z
    .number()
    .min(1)
    .max(100)
    .default(100)
    .describe('Never planned above this state of charge (%).')
    .meta({ title: 'Highest state of charge' }),
  roundTripEfficiency: z
    .number()
    .gt(0)
    .max(1)
    .default(0.9)
    .describe('Share of the energy charged that comes back.')
    .meta({ title: 'Round-trip efficiency' }),
  cycleCost: z
    .number()
    .min(0)
    .max(1)
    .default(0.03)
    .describe('Wear cost per kWh discharged, in the price currency.')
    .meta({ title: 'Cycle cost' }),
  gridImportLimitW: z
    .number()
    .min(0)
    .max(1_000_000)
    .default(17_000)
    .describe(
      'Largest grid import, W: planned for, and enforced while charging from the live grid power (the charge power is lowered).',
    )
    .meta({ title: 'Grid import limit' }),
  gridPowerTopic: z
    .string()
    .default('total/grid_power')
    .describe('The live grid power (positive = import) the import limit is enforced on.')
    .meta({ title: 'Grid power topic' }),
  gridExportLimitW: z
    .number()
    .min(0)
    .max(1_000_000)
    .default(10_000)
    .describe('Largest grid export, W.')
    .meta({ title: 'Grid export limit' }),
  exportAllowed: z
    .boolean()
    .default(true)
    .describe('Whether energy may be exported at all.')
    .meta({ title: 'Export allowed' }),
  exportPaid: z
    .boolean()
    .default(true)
    .describe('Whether export is paid (else its price counts as 0).')
    .meta({ title: 'Export paid' }),
  exportPrice: z
    .number()
    .min(-10)
    .max(10)
    .default(0)
    .describe('Feed-in price per kWh when the price book has no export prices.')
    .meta({ title: 'Export price' }),
  horizonHours: z
    .number()
    .int()
    .min(12)
    .max(48)
    .default(48)
    .describe('How far ahead to plan (limited by known prices).')
    .meta({ title: 'Horizon (hours)' }),
  loadTopic: z
    .string()
    .default('total/load_power')
    .describe('The recorded household load the load forecast learns from.')
    .meta({ title: 'Load topic' }),
  historyWeeks: z
    .number()
    .int()
    .min(1)
    .max(8)
    .default(4)
    .describe('How many past weeks of recorded load the load forecast averages.')
    .meta({ title: 'Load history (weeks)' }),
  replanSocDeviation: z
    .number()
    .min(1)
    .max(50)
    .default(5)
    .describe('How far the state of charge may drift from the plan before it is made again, in %.')
    .meta({ title: 'Re-plan after a drift of' }),
  chargers: z
    .array(z.string().regex(/^[a-z0-9_]+$/))
    .optional()
    .describe(
      'The EV chargers whose car the planner plans with the house (each in charging mode `planned`, with a plan target, a car plugged in); default: every charger in mode `planned`. One car is planned at a time: the first that needs energy.',
    )
    .meta({ title: 'Planned chargers' }),
  carEfficiency: z
    .number()
    .gt(0)
    .max(1)
    .default(0.9)
    .describe(
      "Share of the energy the charger delivers that reaches the car's battery: a plan target of 30 kWh draws 30 / 0.9 kWh.",
    )
    .meta({ title: 'Car charging efficiency' }),
  carCapacityKwh: z
    .number()
    .min(1)
    .max(250)
    .default(60)
    .describe(
      "The car battery's capacity, kWh: turns a plan target in % into energy (when the charger reports the car's SoC).",
    )
    .meta({ title: 'Car battery capacity' }),
  checkIntervalMs: z
    .number()
    .int()
    .min(100)
    .max(900_000)
    .default(60_000)
    .describe('How often the planner looks, in ms: a new quarter hour gets a new plan, a change in between too.')
    .meta({ title: 'Check interval (ms)' }),
});

export type PlannerConfig = z.infer<typeof configSchema>;
