/*
 * The ocpp plugin's configuration: where chargers connect, and one entry per charger device.
 * Chargers are keyed by their device id (`charger_1`) rather than listed: the core keeps a
 * password as a secret only in an object's field (core/src/plugins/instances/secrets.ts, a
 * list entry has no stable identity to keep a hidden value by), and the key ties an entry to
 * its device without counting positions.
 */
import { secret, z } from '@heliograph/plugins-sdk';

/** At most this many chargers per instance (the manifest's `devices.max`). */
export const MAX_CHARGERS = 8;

export const chargerSchema = z.strictObject({
  chargePointId: z
    .string()
    .regex(/^[A-Za-z0-9._~:-]{1,48}$/, 'must be 1 to 48 letters, digits or . _ ~ : - (OCPP 1.6 CiString48 in the URL)')
    .describe('The charge point identity the charger connects with: the last part of its URL, /ocpp/<id>.')
    .meta({ title: 'Charge point id' }),
  password: secret(z.string().min(16, 'must be at least 16 characters (OCPP 1.6 security, profile 1)').max(40))
    .describe('HTTP Basic password the charger sends (OCPP security profile 1): enter the same in its setup page.')
    .meta({ title: 'Password' }),
  maxCurrentA: z
    .number()
    .int()
    .min(6, 'must be from 6 to 80 (A)')
    .max(80, 'must be from 6 to 80 (A)')
    .default(16)
    .describe('The charger rating per phase; the owner’s maximum current is at most this.')
    .meta({ title: 'Rated current (A)' }),
  phases: z
    .union([z.literal(1), z.literal(3)])
    .default(3)
    .describe('Phases wired to the charger.')
    .meta({ title: 'Phases' }),
  canSwitchPhases: z
    .boolean()
    .default(false)
    .describe('The charger switches between 1 and 3 phases itself (numberPhases in a charging profile).')
    .meta({ title: 'Switches phases' }),
  authorization: z
    .enum(['free', 'list'])
    .default('free')
    .describe('Free charging accepts any RFID tag; a local list only the tags below.')
    .meta({ title: 'Authorization', enumLabels: { free: 'Free charging', list: 'Local list of tags' } }),
  idTags: z
    .array(z.string().min(1).max(20, 'an OCPP idTag has at most 20 characters'))
    .default([])
    .describe('The RFID tags (idTag) accepted when authorization is a local list.')
    .meta({ title: 'Accepted tags' }),
  remoteIdTag: z
    .string()
    .min(1)
    .max(20)
    .default('heliograph')
    .describe('The idTag Heliograph sends when it starts a session remotely.')
    .meta({ title: 'Remote start tag' }),
});

export type ChargerConfig = z.infer<typeof chargerSchema>;

const chargers = Object.fromEntries(
  Array.from({ length: MAX_CHARGERS }, (_, i) => [
    `charger_${i + 1}`,
    chargerSchema
      .optional()
      .describe(`The charger that is device charger_${i + 1}: how it connects and what it may do.`)
      .meta({ title: `Charger ${i + 1}` }),
  ]),
) as Record<`charger_${number}`, z.ZodOptional<typeof chargerSchema>>;

const clockTime = (title: string, fallback: string, what: string) =>
  z
    .string()
    .regex(/^([01]\d|2[0-3]):[0-5]\d$/, 'must be a local time HH:MM, such as "18:00"')
    .default(fallback)
    .describe(what)
    .meta({ title });

/** The demo's car (`demoChargePoint`): when it plugs in and out, site time, and its battery. */
const demoCarSchema = z
  .strictObject({
    plugInAt: clockTime('Plugs in at', '18:00', 'The demo car plugs in at this local time of the site each day.'),
    unplugAt: clockTime('Unplugs at', '07:00', 'The demo car is unplugged at this local time of the site.'),
    capacityKWh: z
      .number()
      .int()
      .min(10)
      .max(200)
      .default(60)
      .describe("The demo car's battery, kWh; it comes home at 40 to 60 % each evening.")
      .meta({ title: 'Car battery (kWh)' }),
  })
  .default({ plugInAt: '18:00', unplugAt: '07:00', capacityKWh: 60 })
  .describe('The demo car of the demo charge point.')
  .meta({ title: 'Demo car' });

export const configSchema = z.strictObject({
  path: z
    .string()
    .regex(/^\/[A-Za-z0-9._~-]+$/, 'must be "/" and one path segment, such as "/ocpp"')
    .default('/ocpp')
    .describe('Chargers connect to ws://<host>:<port><path>/<charge point id>.')
    .meta({ title: 'Path' }),
  port: z
    .number()
    .int()
    .min(1)
    .max(65535)
    .nullable()
    .default(null)
    .describe("A port of the plugin's own for chargers; empty: the service's own port.")
    .meta({ title: 'Port' }),
  host: z
    .string()
    .default('0.0.0.0')
    .describe('The address a port of its own listens on.')
    .meta({ title: 'Listen address' }),
  heartbeatIntervalS: z
    .number()
    .int()
    .min(1)
    .max(3600)
    .default(60)
    .describe('The heartbeat interval given to chargers at boot; silent for 3 of them is offline.')
    .meta({ title: 'Heartbeat interval (s)' }),
  decideIntervalMs: z
    .number()
    .int()
    .min(0)
    .max(60_000)
    .default(5_000)
    .describe('The shortest time between two decisions of the charging rules.')
    .meta({ title: 'Decision interval (ms)' }),
  leaseMinutes: z
    .number()
    .int()
    .min(2)
    .max(30)
    .default(30)
    .describe('How long a charging profile Heliograph sets holds on the charger without renewal (at most 30).')
    .meta({ title: 'Profile lease (min)' }),
  chargers: z
    .strictObject(chargers)
    .default({})
    .describe('One entry per charger, keyed by its device id (charger_1 ... charger_8).')
    .meta({ title: 'Chargers' }),
  demoChargePoint: z
    .boolean()
    .default(false)
    .describe(
      'For the demo: the first charger device is an emulated charge point run by the plugin itself over loopback (no chargers entry needed, a random password each start), with a car that plugs in each evening. Off for a real charger.',
    )
    .meta({ title: 'Demo charge point' }),
  demoCar: demoCarSchema,
});

export type OcppConfig = z.infer<typeof configSchema>;
