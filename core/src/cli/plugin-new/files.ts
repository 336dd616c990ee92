/*
 * `heliograph plugin new <id> --kind driver|prices|forecast|integration`: the files of a new
 * plugin package, complete enough that the steps `plugin new` prints (pack the SDK and the
 * core, install them, `npm run build`, `npm test`) pass at once. What a kind adds is in driver.ts and services.ts.
 */
import { driverFiles } from './driver.js';
import { forecastFiles, integrationFiles, pricesFiles } from './services.js';
import type { Template } from './template.js';

export const KINDS = ['driver', 'prices', 'forecast', 'integration'] as const;
export type NewPluginKind = (typeof KINDS)[number];

/** Every file of the new package by its path inside it. */
export function pluginFiles(
  id: string,
  kind: NewPluginKind,
  versions: { sdkRange: string; typescriptRange: string },
): Record<string, string> {
  const words = id.replaceAll('-', ' ');
  const t: Template = {
    id,
    kind: kind === 'driver' ? 'inverter' : kind,
    name: words.charAt(0).toUpperCase() + words.slice(1),
    ...versions,
  };
  const own =
    kind === 'driver'
      ? driverFiles(t)
      : kind === 'prices'
        ? pricesFiles(t)
        : kind === 'forecast'
          ? forecastFiles(t)
          : integrationFiles(t);
  return {
    'package.json': `${JSON.stringify(packageJson(t, kind), null, 2)}\n`,
    'tsconfig.json': `${JSON.stringify(TSCONFIG, null, 2)}\n`,
    '.gitignore': 'node_modules/\ndist/\n',
    'README.md': readme(t, kind),
    ...own,
  };
}

const TSCONFIG = {
  compilerOptions: {
    target: 'es2023',
    module: 'nodenext',
    moduleResolution: 'nodenext',
    strict: true,
    skipLibCheck: true,
    types: ['node'],
    rootDir: '.',
    outDir: 'dist',
  },
  include: ['src', 'test'],
};

function packageJson(t: Template, kind: NewPluginKind): Record<string, unknown> {
  return {
    name: `heliograph-plugin-${t.id}`,
    version: '0.1.0',
    description: `${t.name}: a Heliograph ${kind === 'driver' ? 'device driver' : `${kind} plugin`}.`,
    type: 'module',
    main: 'dist/src/index.js',
    keywords: ['heliograph-plugin'],
    heliograph: {
      id: t.id,
      kind: t.kind,
      // The SDK's major.minor it was made with: what its code may use.
      sdk: t.sdkRange.replace(/^\^(\d+\.\d+)\.\d+$/, '^$1'),
      name: t.name,
      ...(kind === 'driver'
        ? {
            devices: { kinds: ['inverter'], min: 1, max: 1 },
            emulator: 'dist/src/emulator/main.js',
            // A serial connection loads serialport's native binding: its sandbox allows it.
            nativeAddons: true,
          }
        : {}),
    },
    scripts: { build: 'tsc', test: "node --test 'dist/test/**/*.test.js'" },
    files: ['dist/src'],
    engines: { node: '>=22.12.0' },
    // The server hands the plugin its own SDK: a peer, installed beside it for the tests.
    peerDependencies: { '@heliograph/plugins-sdk': t.sdkRange },
    devDependencies: {
      '@heliograph/plugins-sdk': t.sdkRange,
      '@types/node': '^22.19.0',
      typescript: t.typescriptRange,
    },
  };
}

function readme(t: Template, kind: NewPluginKind): string {
  const run =
    kind === 'driver'
      ? `heliograph emulate ${t.id} --plugin-dir . --port 1502     # its device, on Modbus TCP
heliograph serve --plugin-dir .                             # then add an instance in the settings page:
# { "id": "${t.id}", "plugin": "${t.id}", "devices": ["inverter_1"],
#   "config": { "connection": { "type": "tcp", "host": "127.0.0.1", "port": 1502 } } }`
      : `heliograph serve --plugin-dir .     # then add an instance of ${t.id} in the settings page`;
  return `# ${t.name}

A Heliograph ${kind === 'driver' ? 'device driver' : `${kind} plugin`}, made by \`heliograph plugin new ${t.id} --kind ${kind}\`.
The plugin API is described in Heliograph's docs/plugins.md.

\`\`\`sh
npm install -D ./heliograph-plugins-sdk-*.tgz ./heliograph-core-*.tgz   # the SDK and its test host, packed
                     # from Heliograph as \`heliograph plugin new\` printed (they are not on the npm registry)
npm run build        # tsc: src/ and test/ to dist/
npm test             # the test host runs the plugin as the server does
${run}
\`\`\`

- \`package.json\` \`heliograph\`: the manifest (id, kind, SDK range${kind === 'driver' ? ', devices, emulator' : ''}); its id is the one
  \`definePlugin\` gives, or the server refuses to start.
- \`src/index.ts\`: \`definePlugin\` with the config schema (checked before the plugin starts; the
  settings page draws its form from it) and \`setup\`.
${
  kind === 'driver'
    ? `- \`src/register-map.ts\`: where the device keeps its values; \`src/emulator/main.ts\`: the device,
  for \`heliograph emulate\` and the tests. The connection may be \`serial\` (\`{ "type": "serial",
  "path": "/dev/ttyUSB0", "baudRate": 9600 }\`): the plugin runs in a process of its own.
`
    : ''
}- \`test/index.test.ts\`: the plugin on the SDK's test host${kind === 'driver' ? ', against the emulator' : ', against a fake of the service'}.
`;
}
