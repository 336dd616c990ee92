#!/usr/bin/env node
/*
 * `npm run release`: heliograph-<version>-linux-<arch>.tar.gz, what a Raspberry Pi or Debian
 * machine installs with one line (README.md, "Install on a Raspberry Pi or Debian").
 *
 * It holds the checkout's layout, built: each package's files as `npm pack` would publish them
 * (core, the plugin SDK, malloc-trim, every bundled plugin; the page's web/dist), the production
 * dependencies as `npm ls --omit=dev --omit=peer` lists them, copied from this checkout's
 * node_modules (so sqlite3's and malloc-trim's native builds are this machine's: hence the
 * architecture in the name), the default plugin setup and config, the systemd unit, install.sh
 * and the installer. Built where it will run: an arm64 Pi needs a release built on arm64.
 *
 * HELIOGRAPH_RELEASE_PREBUILT=1 packs what is built already (the tests, after their build);
 * HELIOGRAPH_RELEASE_OUT=DIR writes the tarball there instead of the checkout's root.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  cpSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));
const OUT = resolve(process.env.HELIOGRAPH_RELEASE_OUT ?? REPO);
// npm sets npm_execpath for its scripts; run outside npm, the npm on the PATH.
const NPM = process.env.npm_execpath ? [process.execPath, process.env.npm_execpath] : ['npm'];
const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));

function npm(args, options = {}) {
  return execFileSync(NPM[0], [...NPM.slice(1), ...args], { cwd: REPO, maxBuffer: 64 << 20, ...options });
}

/** The packages that run on the device: the web page is only its built files. */
function workspaces() {
  const plugins = readdirSync(join(REPO, 'plugins')).filter((id) =>
    existsSync(join(REPO, 'plugins', id, 'package.json')),
  );
  return ['plugins-sdk', 'core/malloc-trim', 'core', ...plugins.map((id) => `plugins/${id}`)];
}

/** Each package's files as `npm pack` lists them (its "files", .npmignore, package.json). */
function packedFiles(dirs) {
  const packs = JSON.parse(
    npm(['pack', '--dry-run', '--json', '--ignore-scripts', ...dirs.flatMap((d) => ['-w', d])], {
      stdio: ['ignore', 'pipe', 'ignore'],
    }),
  );
  return new Map(packs.map((p) => [p.name, p.files.map((f) => f.path)]));
}

/** The production dependencies' folders under node_modules, nested ones included. */
function productionModules(dirs) {
  let listed;
  try {
    listed = npm(['ls', '--omit=dev', '--omit=peer', '--all', '--parseable', ...dirs.flatMap((d) => ['-w', d])], {
      stdio: ['ignore', 'pipe', 'ignore'],
    });
  } catch (err) {
    // npm ls exits 1 on a problem it also prints (an extraneous package); the list is still whole.
    listed = err.stdout;
  }
  const modules = join(REPO, 'node_modules') + sep;
  return String(listed)
    .split('\n')
    .filter((path) => path.startsWith(modules))
    .map((path) => relative(REPO, path))
    .filter((path) => !path.startsWith(join('node_modules', '@heliograph') + sep));
}

/** What a native package needs at run time; its sources and objects stay behind. */
const NATIVE_KEEP = { sqlite3: join('build', 'Release', 'node_sqlite3.node') };

function copyModule(path, stage) {
  const from = join(REPO, path);
  const to = join(stage, path);
  const nested = join(from, 'node_modules');
  const native = NATIVE_KEEP[path.slice('node_modules/'.length)];
  cpSync(from, to, {
    recursive: true,
    verbatimSymlinks: true,
    filter: (src) => src !== nested && !(native && ['build', 'deps', 'src'].some((dir) => src === join(from, dir))),
  });
  if (native) {
    mkdirSync(dirname(join(to, native)), { recursive: true });
    cpSync(join(from, native), join(to, native));
  }
}

function gitCommit() {
  try {
    return execFileSync('git', ['-C', REPO, 'describe', '--always', '--dirty'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}

if (process.env.HELIOGRAPH_RELEASE_PREBUILT !== '1') npm(['run', 'build'], { stdio: 'inherit' });
for (const built of ['core/dist/src/main.js', 'web/dist/index.html'])
  if (!existsSync(join(REPO, built))) throw new Error(`${built} is missing: run npm run build first`);

const { version } = readJson(join(REPO, 'core', 'package.json'));
const arch = process.arch;
const name = `heliograph-${version}-linux-${arch}`;
const work = mkdtempSync(join(tmpdir(), 'heliograph-release-'));
const stage = join(work, 'heliograph');
try {
  const dirs = workspaces();
  const files = packedFiles(dirs);
  for (const dir of dirs) {
    const pkg = readJson(join(REPO, dir, 'package.json'));
    for (const file of files.get(pkg.name) ?? []) {
      mkdirSync(dirname(join(stage, dir, file)), { recursive: true });
      cpSync(join(REPO, dir, file), join(stage, dir, file));
    }
    // Resolved as npm's workspace links are in the checkout.
    const link = join(stage, 'node_modules', ...pkg.name.split('/'));
    mkdirSync(dirname(link), { recursive: true });
    symlinkSync(relative(dirname(link), join(stage, dir)), link);
  }
  // /usr/local/bin/heliograph links to it: executable, as npm makes a package's bin.
  chmodSync(join(stage, 'core', 'dist', 'src', 'main.js'), 0o755);
  cpSync(join(REPO, 'web', 'dist'), join(stage, 'web', 'dist'), { recursive: true });
  cpSync(join(REPO, 'web', 'package.json'), join(stage, 'web', 'package.json'));
  for (const path of productionModules(dirs)) copyModule(path, stage);
  for (const file of ['README.md', 'plugins.json', 'config/default.json', 'config/heliograph.service'])
    cpSync(join(REPO, file), join(stage, file));
  cpSync(join(REPO, 'config', 'release', 'installer.mjs'), join(stage, 'config', 'release', 'installer.mjs'));
  cpSync(join(REPO, 'config', 'release', 'install.sh'), join(stage, 'install.sh'));
  const engines = readJson(join(REPO, 'package.json')).engines;
  writeFileSync(
    join(stage, 'package.json'),
    JSON.stringify({ name: 'heliograph-release', version, private: true, type: 'module', engines }, null, 2) + '\n',
  );
  writeFileSync(
    join(stage, 'release.json'),
    JSON.stringify({ version, platform: process.platform, arch, node: process.version, commit: gitCommit() }, null, 2) +
      '\n',
  );
  mkdirSync(OUT, { recursive: true });
  const tarball = join(OUT, `${name}.tar.gz`);
  // Owned by root and readable by all once unpacked (the service's user reads it, never writes it).
  execFileSync('tar', [
    '--sort=name',
    '--owner=0',
    '--group=0',
    '--numeric-owner',
    '--mode=u+rwX,go+rX,go-w',
    '-czf',
    tarball,
    '-C',
    work,
    'heliograph',
  ]);
  const mb = (statSync(tarball).size / 1e6).toFixed(1);
  console.log(`${tarball} (${mb} MB, Heliograph ${version} for linux-${arch})`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
