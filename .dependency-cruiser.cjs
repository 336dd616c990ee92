/*
 * The import graph's rules (`npm run check:deps`, part of `npm test`):
 * - no cycles (type-only imports included) in the core, the SDK and the plugins;
 * - the core's layers, lowest first, as docs/architecture.md ("Layers") lists them: a file
 *   imports from its own layer or a lower one, never from a higher one;
 * - the same for the page's folders (web/src, WEB_LAYERS below; docs/architecture.md, "The
 *   page"), and every page file sits in one of them (main.ts alone at the top).
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
      'container/tokens',
      // The API's contract: the answers' zod schemas (`api-schemas`), their types (`api-types`), the error codes, ApiError: data, which every layer may describe.
      'contract/',
    ],
  },
  {
    name: 'services',
    paths: ['history/', 'writes/', 'forecast/', 'grid/', 'energy/', 'alerts/', 'system/'],
  },
  { name: 'plugins', paths: ['plugins/'] },
  // schema.ts lists every concern's migrations, the plugin store's too.
  { name: 'composition', paths: ['container/', 'metrics-export/', 'schema', 'backup/'] },
  { name: 'api', paths: ['api/'] },
  { name: 'server', paths: ['server'] },
  { name: 'cli', paths: ['cli/'] },
  { name: 'entry', paths: ['main', 'index', 'testing'] },
];

/** The page's folders under web/src, lowest first: a screen is drawn from cards, charts, forms and notices, which read the state, which calls the API. */
const WEB_LAYERS = [
  { name: 'api', paths: ['api/'] },
  { name: 'ui', paths: ['ui/'] },
  { name: 'state', paths: ['state/'] },
  { name: 'parts', paths: ['charts/', 'forms/', 'notices/'] },
  { name: 'cards', paths: ['cards/'] },
  { name: 'screens', paths: ['screens/'] },
  { name: 'entry', paths: ['main'] },
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
const pathsRe = (root, paths) =>
  `^${escape(root)}/(` + paths.map((p) => (p.endsWith('/') ? escape(p) : escape(p) + '\\.ts$')).join('|') + ')';

/** One rule per layer: its files import nothing of a higher layer. */
const layerRules = (root, layers, prefix, what) =>
  layers.flatMap((layer, index) => {
    const higher = layers.slice(index + 1).flatMap((other) => other.paths);
    if (higher.length === 0) return [];
    const lowerOrSame = pathsRe(
      root,
      layers.slice(0, index + 1).flatMap((other) => other.paths),
    );
    // Files a more specific path puts in a lower layer (container/tokens.ts) are not this layer's.
    const lowerSpecific = layers
      .slice(0, index)
      .flatMap((other) => other.paths)
      .filter((p) => layer.paths.some((own) => own.endsWith('/') && p.startsWith(own)));
    return [
      {
        name: `${prefix}${layer.name}`,
        severity: 'error',
        comment: `${root} ${layer.name} imports only from its own layer or lower ones (docs/architecture.md, "${what}").`,
        from: { path: pathsRe(root, layer.paths), pathNot: lowerSpecific.length ? [pathsRe(root, lowerSpecific)] : [] },
        to: { path: pathsRe(root, higher), pathNot: [lowerOrSame] },
      },
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
      from: { path: '^(core/src|plugins-sdk/src|plugins/[^/]+/src|web/src)/' },
      to: { circular: true },
    },
    ...layerRules('core/src', LAYERS, 'layer-', 'Layers'),
    ...layerRules('web/src', WEB_LAYERS, 'layer-web-', 'The page'),
    {
      name: 'plugin-outside',
      severity: 'error',
      comment:
        "A plugin imports only its own files and the SDK's public entry points, never the core's or another plugin's (docs/architecture.md, \"The packages\"; package imports are eslint's no-restricted-imports).",
      from: { path: '^plugins/([^/]+)/src/' },
      to: { path: '^(plugins/|core/|plugins-sdk/src/|@heliograph/core)', pathNot: ['^plugins/$1/'] },
    },
    {
      name: 'web-unplaced',
      severity: 'error',
      comment: 'Every page file sits in one of the folders WEB_LAYERS orders (docs/architecture.md, "The page").',
      from: {
        path: '^web/src/',
        pathNot: [
          pathsRe(
            'web/src',
            WEB_LAYERS.flatMap((layer) => layer.paths),
          ),
          '^web/src/test/',
        ],
      },
      to: {},
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)(dist|node_modules|test)/' },
    // Type-only imports count: a cycle of types is still a knot to read.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'core/tsconfig.json' },
  },
};
