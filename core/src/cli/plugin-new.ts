/*
 * `heliograph plugin new <id> --kind driver|prices|forecast|integration [--dir DIR]`: writes
 * a new plugin package into DIR (default ./<id>), refusing to write into a folder that
 * exists and is not empty.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { manifestSchema } from '@heliograph/plugins-sdk';
import { UsageError } from './command.js';
import { KINDS, pluginFiles, type NewPluginKind } from './plugin-new/files.js';

const require = createRequire(import.meta.url);
const sdkPackageFile = require.resolve('@heliograph/plugins-sdk/package.json');
const sdkPackage = require(sdkPackageFile) as { version: string; peerDependencies?: Record<string, string> };
/** The core's own package (this file is its dist/src/cli/plugin-new.js). */
const coreDir = fileURLToPath(new URL('../../..', import.meta.url));
const corePackage = require(join(coreDir, 'package.json')) as { version: string };

export function runPluginCommand(argv: string[]): number {
  const [sub, ...rest] = argv;
  if (sub !== 'new') throw new UsageError('the only subcommand is `heliograph plugin new <id> --kind <kind>`');
  const { values, positionals } = parseArgs({
    args: rest,
    allowPositionals: true,
    options: { kind: { type: 'string' }, dir: { type: 'string' } },
  });
  const [id] = positionals;
  if (!id || positionals.length > 1) throw new UsageError('plugin new: name one plugin id, e.g. `acme-meter`');
  const idCheck = manifestSchema.shape.id.safeParse(id);
  if (!idCheck.success)
    throw new UsageError(`plugin new: "${id}" is no plugin id: lower-case letters, digits and dashes`);
  const kind = values.kind as NewPluginKind | undefined;
  if (!kind || !KINDS.includes(kind)) throw new UsageError(`plugin new: --kind is one of ${KINDS.join(', ')}`);
  const dir = resolve(values.dir ?? id);
  if (existsSync(dir) && readdirSync(dir).length > 0)
    throw new Error(`plugin new: ${dir} exists and is not empty; choose another --dir`);
  const files = pluginFiles(id, kind, {
    sdkRange: `^${sdkPackage.version}`,
    typescriptRange: sdkPackage.peerDependencies?.typescript ?? '*',
  });
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  process.stdout.write(
    `wrote the ${kind} plugin ${id} to ${dir}:\n${Object.keys(files)
      .sort()
      .map((path) => `  ${path}`)
      .join('\n')}\n${nextSteps(dir)}`,
  );
  return 0;
}

/**
 * The commands that install, build and test the new package, one a line: the SDK and the core
 * (its test host) are not on the npm registry, so they are packed from this installation.
 */
function nextSteps(dir: string): string {
  const sdkTarball = `heliograph-plugins-sdk-${sdkPackage.version}.tgz`;
  const coreTarball = `heliograph-core-${corePackage.version}.tgz`;
  return [
    'next (the SDK and its test host are packed from this Heliograph; they are not on the npm registry):',
    `  cd ${quote(dir)}`,
    `  npm pack ${quote(dirname(sdkPackageFile))} ${quote(coreDir.replace(/\/$/, ''))} --pack-destination .`,
    `  npm install -D ./${sdkTarball} ./${coreTarball}`,
    '  npm run build',
    '  npm test',
    '',
  ].join('\n');
}

/** A path as a shell word. */
function quote(path: string): string {
  return /^[\w./@+-]+$/.test(path) ? path : `'${path.replaceAll("'", "'\\''")}'`;
}
