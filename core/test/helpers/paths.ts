import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root (from core/dist/test/helpers), with a trailing separator. */
export const REPO_ROOT = fileURLToPath(new URL('../../../../', import.meta.url));
/** The built command line, `node MAIN serve ...` as the service runs it. */
export const MAIN = join(REPO_ROOT, 'core', 'dist', 'src', 'main.js');
/** test/fixtures/plugins: the plugins the tests install, one folder each. */
export const FIXTURE_PLUGINS = join(REPO_ROOT, 'test', 'fixtures', 'plugins');
