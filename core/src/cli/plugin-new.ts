/*
 * `heliograph plugin new <id> --kind driver|prices|forecast|integration [--dir DIR]`: writes
 * a new plugin package into DIR (default ./<id>), refusing to write into a folder that
 * exists and is not empty.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { manifestSchema } from '@heliograph/plugins-sdk';
import { UsageError } from './command.js';
import { KINDS, pluginFiles, type NewPluginKind } from './plugin-new/files.js';

const sdkPackage = createRequire(import.meta.url)('@heliograph/plugins-sdk/package.json') as {
  version: string;
  peerDependencies?: Record<string, string>;
};

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
      .join('\n')}\nnext: cd ${dir} && npm install && npm run build && npm test\n`,
  );
  return 0;
}
