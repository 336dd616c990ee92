/**
 * The command table: one entry per subcommand, each in a file of its own and loaded only when
 * it runs. To add a subcommand, add its entry here.
 */
import { loadConfig } from '../config/load.js';
import { DATA_HELP, locations, parseFlags, stringFlag, UsageError, type Command } from './command.js';
import { USAGE as HISTORY_USAGE } from './history/common.js';
import { SERVE_HELP } from './serve.js';
import { BACKUP_HELP, RESTORE_HELP } from './backup-help.js';

export const COMMANDS: readonly Command[] = [
  {
    name: 'serve',
    synopsis: 'serve [--host H] [--port N] [--data DIR] [--plugins FILE] [--config FILE] [--plugin-dir DIR]...',
    help: SERVE_HELP,
    load: async () => (await import('./serve.js')).runServeCommand,
  },
  {
    name: 'password',
    synopsis: 'password set [--data DIR] [--config FILE]   reads the new password from stdin',
    help: `Usage: heliograph password set [--data DIR] [--config FILE]

Sets the device password: reads it twice on a terminal, or one line from a pipe
(echo 'choose-a-password' | heliograph password set). A running service sees it at once.

${DATA_HELP}`,
    load: async () => {
      const { runPasswordCommand } = await import('./password.js');
      return (argv) => {
        const { values, positionals } = parseFlags({
          args: argv,
          allowPositionals: true,
          options: { data: { type: 'string' }, config: { type: 'string' } },
        });
        if (positionals.length !== 1 || positionals[0] !== 'set')
          throw new UsageError('the one password command is `password set`');
        const where = locations(values);
        return runPasswordCommand({ dataDir: where.dataDir, config: loadConfig(where.configFile) });
      };
    },
  },
  {
    name: 'history',
    synopsis: 'history export|import|check|repair ...    history as CSV, and its health',
    help: `${HISTORY_USAGE}\n\nEvery history command also takes:\n${DATA_HELP}`,
    load: async () => {
      const { runHistoryCommand } = await import('./history.js');
      return (argv) => {
        // Only where the data lives is read here; the subcommand checks its own flags strictly.
        const { values } = parseFlags({
          args: argv,
          strict: false,
          allowPositionals: true,
          options: { data: { type: 'string' }, config: { type: 'string' } },
        });
        const where = locations({ data: stringFlag(values.data), config: stringFlag(values.config) });
        return runHistoryCommand(argv, { dataDir: where.dataDir, config: loadConfig(where.configFile) });
      };
    },
  },
  {
    name: 'setup-code',
    synopsis: 'setup-code [--data DIR]                   prints the first-run setup code, while no password is set',
    help: `Usage: heliograph setup-code [--data DIR]

Prints the one-time setup code the settings page asks for before the first password is set
(the service also logs it at every start). Exit 1 when there is none: a password is set, or
the service has not started yet.

  --data DIR       the data directory (HELIOGRAPH_DATA; default ./data)`,
    load: async () => {
      const { runSetupCode } = await import('./setup-code.js');
      return (argv) => {
        const { values } = parseFlags({ args: argv, options: { data: { type: 'string' } } });
        return Promise.resolve(runSetupCode(locations(values).dataDir));
      };
    },
  },
  {
    name: 'backup',
    synopsis: 'backup FILE [--data DIR]                  a consistent copy, also of a running service',
    help: BACKUP_HELP,
    load: async () => (await import('./backup.js')).runBackupCommand,
  },
  {
    name: 'restore',
    synopsis: 'restore FILE [--data DIR]                 puts a backup back (service stopped)',
    help: RESTORE_HELP,
    load: async () => (await import('./restore.js')).runRestoreCommand,
  },
  {
    name: 'emulate',
    synopsis: 'emulate DRIVER [--port N] [--host H] ...   a device emulator (deye, sunspec, voltronic, ...)',
    help: `Usage: heliograph emulate DRIVER [--port N] [--host H] [--transport T] [--unit-id N]
                          [--logger-serial N] [--double-crc] [--model M] [--plugin-dir DIR]...

Starts the emulator of a driver's device (deye, sunspec, voltronic, pylontech, growatt, victron,
solis, goodwe, huawei, daly, jkbms), speaking the real wire format. Prints "listening on HOST:PORT" and runs
until SIGINT or SIGTERM.

  --port N            port, 0 (default) picks a free one
  --host H            address to listen on (default 127.0.0.1, loopback only)
  --transport T       the wire format, where the driver speaks several (deye: tcp, rtu-over-tcp, solarman)
  --unit-id N         the Modbus unit id, 1 to 247
  --logger-serial N   the Solarman logger's serial number
  --double-crc        Solarman replies end with the two trailing zero bytes some loggers add
  --model M           the model emulated, where the driver knows several
                      (deye: single-phase, three-phase-lv, three-phase-hv; growatt: sph, spa)
  --plugin-dir DIR    also looks for the driver in DIR, as serve does (HELIOGRAPH_PLUGIN_DIR too)

       heliograph emulate ocpp-charger --url ws://HOST:PORT/ocpp/ID --password P [--plugged]
                          [--authorize] [--default-current A] [--phases 1|3] [--meter-interval S]
                          [--car-kwh N] [--car-soc N] [--plug-in-at HH:MM --unplug-at HH:MM]

An EV charger speaking OCPP 1.6J that connects to a central system (the ocpp plugin) at --url
with HTTP Basic --password; a car plugs in with --plugged, or each day at --plug-in-at.`,
    load: async () => (await import('./emulate.js')).runEmulateCommand,
  },
  {
    name: 'plugin',
    synopsis: 'plugin new ID --kind driver|prices|forecast|integration [--dir DIR]   a new plugin package',
    help: `Usage: heliograph plugin new ID --kind driver|prices|forecast|integration [--dir DIR]

Writes a new plugin package into DIR (default ./ID): manifest, definePlugin, config schema, a
test on the SDK's test host, a README, and for a driver a register map and a device emulator.
It prints the steps that install, build and test it (the SDK and the core are packed from this
Heliograph; they are not on the npm registry).
Refuses a folder that exists and is not empty.`,
    load: async () => {
      const { runPluginCommand } = await import('./plugin-new.js');
      return (argv) => Promise.resolve(runPluginCommand(argv));
    },
  },
];
