/*
 * The import graph's rules (`npm run check:deps`, part of `npm test`):
 * - no cycles (type-only imports included) in the core, the SDK and the plugins;
 * - the core's layers, lowest first, as docs/architecture.md ("Layers") lists them: a file
 *   imports from its own layer or a lower one, never from a higher one.
 * A layer is a list of paths under core/src: a folder ends in `/`, a file is named without
 * `.ts`. A more specific path wins (container/tokens.ts is domain, the rest of container/ is
 * composition).
 */
const LAYERS = [
  {
    name: 'base',
    paths: ['clock', 'log', 'numbers', 'rfc3339', 'db', 'db-writer', 'events', 'install-root', 'container/di'],
  },
  {
    name: 'domain',
    paths: [
      'topics/',
      'auth/',
      'config/',
      'api-types',
      'container/tokens',
      // The answers' zod schemas (the `api-schemas` entry) and the error codes: data, which every layer may describe.
      'api/schemas/',
      'api/common-schemas',
      'api/error-codes',
      'api/api-error',
      'api/field-issues',
      ...[
        'audit',
        'config',
        'forecast',
        'grid',
        'history',
        'metrics',
        'openapi',
        'plugins',
        'setup',
        'system',
        'tokens',
      ].map((resource) => `api/${resource}/schemas`),
    ],
  },
  {
    name: 'services',
    paths: ['history/', 'writes/', 'forecast/', 'grid/', 'energy/', 'alerts/', 'system/', 'schema'],
  },
  { name: 'plugins', paths: ['plugins/'] },
  { name: 'composition', paths: ['container/', 'metrics-export/'] },
  { name: 'api', paths: ['api/'] },
  { name: 'server', paths: ['server'] },
  { name: 'cli', paths: ['cli/'] },
  { name: 'entry', paths: ['main', 'index'] },
];

/**
 * Imports that break a rule and are not fixed yet, each with the move that removes it: they
 * sit in files other work was reshaping when the check came in (api/, plugins/). The list
 * only shrinks. Upward: [layer of the importer, importer, imported] as path regexes.
 * DEPCRUISE_NO_EXCEPTIONS=1 counts them too (test/lint/graph-figures.mjs).
 */
const KNOWN = process.env.DEPCRUISE_NO_EXCEPTIONS
  ? { upward: [], circular: [] }
  : {
      upward: [
        // schema.ts lists every concern's migrations, the plugin store's too; history/open.ts runs
        // its check. Fix: openCoreDatabase takes the check as an argument, schema.ts goes up a layer.
        ['services', '^core/src/schema\\.ts$', '^core/src/plugins/context/plugin-store\\.ts$'],
      ],
      circular: [],
    };

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathsRe = (paths) =>
  '^core/src/(' + paths.map((p) => (p.endsWith('/') ? escape(p) : escape(p) + '\\.ts$')).join('|') + ')';

/**
 * One rule per layer: its files import nothing of a higher layer. A file with a known
 * exception gets a rule of its own that spares that one target.
 */
const layerRules = LAYERS.flatMap((layer, index) => {
  const higher = LAYERS.slice(index + 1).flatMap((other) => other.paths);
  if (higher.length === 0) return [];
  const lowerOrSame = pathsRe(LAYERS.slice(0, index + 1).flatMap((other) => other.paths));
  // Files a more specific path puts in a lower layer (container/tokens.ts) are not this layer's.
  const lowerSpecific = LAYERS.slice(0, index)
    .flatMap((other) => other.paths)
    .filter((p) => layer.paths.some((own) => own.endsWith('/') && p.startsWith(own)));
  const rule = (from, spared = []) => ({
    name: `layer-${layer.name}`,
    severity: 'error',
    comment: `core/src ${layer.name} imports only from its own layer or lower ones (docs/architecture.md, "Layers").`,
    from,
    to: { path: pathsRe(higher), pathNot: [lowerOrSame, ...spared] },
  });
  const exceptions = KNOWN.upward.filter(([name]) => name === layer.name);
  return [
    rule({
      path: pathsRe(layer.paths),
      pathNot: [...(lowerSpecific.length ? [pathsRe(lowerSpecific)] : []), ...exceptions.map(([, from]) => from)],
    }),
    ...exceptions.map(([, from, to]) => rule({ path: from }, [to])),
  ];
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'The import graph is a tree: a cycle means a shared type lives too high; move it to the lowest layer that owns it.',
      from: { path: '^(core/src|plugins-sdk/src|plugins/[^/]+/src)/', pathNot: KNOWN.circular },
      to: { circular: true },
    },
    ...layerRules,
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|test)/' },
    // Type-only imports count: a cycle of types is still a knot to read.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'core/tsconfig.json' },
  },
};
