import { ConfigError } from '../config/load.js';
import { errorMessage } from '../log.js';
import { VERSION } from '../install-root.js';
import { UsageError, usageErrorFrom, wantsHelp } from './command.js';
import { COMMANDS } from './commands.js';

const USAGE = `Usage: heliograph COMMAND [options]      (heliograph COMMAND --help for each)

${COMMANDS.map((c) => `  heliograph ${c.synopsis}`).join('\n')}
  heliograph --version

Settings may also come from the environment (HELIOGRAPH_DATA, HELIOGRAPH_PORT, ...,
HELIOGRAPH_LOG_LEVEL=debug|info|warn|error|silent): see heliograph serve --help.`;

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') {
    (name === undefined ? process.stderr : process.stdout).write(USAGE + '\n');
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    process.stdout.write(`heliograph ${VERSION}\n`);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    process.stderr.write(`heliograph: unknown command "${name}"\n\n${USAGE}\n`);
    return 2;
  }
  if (wantsHelp(rest)) {
    process.stdout.write(command.help + '\n');
    return 0;
  }
  try {
    return await (
      await command.load()
    )(rest);
  } catch (err) {
    const usage = err instanceof UsageError ? err : usageErrorFrom(err);
    if (!usage) throw err;
    process.stderr.write(`heliograph ${name}: ${usage.message}\n\n${command.help}\n`);
    return 2;
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (err) => {
    if (err instanceof ConfigError) process.stderr.write(`heliograph: cannot start:\n${err.message}\n`);
    else process.stderr.write(`heliograph: ${errorMessage(err)}\n`);
    process.exit(1);
  },
);
