import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

/** The built settings page, from test/dist/browser. */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/** Set to a Chromium or Chrome executable to use that one. */
export const BROWSER_ENV = 'HELIOGRAPH_CHROMIUM';
/** Set (CI does) to make a missing browser fail the browser tests instead of skipping them. */
export const REQUIRE_BROWSER_ENV = 'HELIOGRAPH_REQUIRE_BROWSER';

/** Set by the test runner once it has said that the browser tests are skipped. */
export const SKIP_ANNOUNCED_ENV = 'HELIOGRAPH_BROWSER_SKIP_ANNOUNCED';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome', 'google-chrome-stable'];

/** The browser to drive: $HELIOGRAPH_CHROMIUM, /usr/bin/chromium, or one of NAMES on the PATH. */
export function findChromium(): string | null {
  const given = process.env[BROWSER_ENV];
  if (given) {
    if (!existsSync(given))
      throw new Error(`${BROWSER_ENV}=${given}: no such file; point it at a Chromium or Chrome executable`);
    return given;
  }
  if (existsSync('/usr/bin/chromium')) return '/usr/bin/chromium';
  for (const dir of (process.env.PATH ?? '').split(delimiter).filter(Boolean)) {
    for (const name of NAMES) if (existsSync(join(dir, name))) return join(dir, name);
  }
  return null;
}

const found = findChromium();

/**
 * Why the browser suites are skipped, or false. Without a browser they are skipped with one
 * loud line saying how to get one; with HELIOGRAPH_REQUIRE_BROWSER set (CI) that is a failure,
 * so a skipped suite never passes for a green one there.
 */
export const BROWSER_SKIP: string | false = (() => {
  if (found) return false;
  const how = `no Chromium found (looked at $${BROWSER_ENV}, /usr/bin/chromium, and ${NAMES.join(', ')} on the PATH): install one with \`apt-get install -y chromium\`, or set ${BROWSER_ENV}`;
  if (process.env[REQUIRE_BROWSER_ENV])
    throw new Error(`${how} (${REQUIRE_BROWSER_ENV} is set, so this is a failure, not a skip)`);
  // test/run-tests.mjs prints the line once for the whole run and sets this for the test files.
  if (process.env[SKIP_ANNOUNCED_ENV] !== '1') process.stderr.write(`\n*** BROWSER TESTS SKIPPED: ${how} ***\n\n`);
  return how;
})();

/** Headless Chromium. An unbuilt page is a failure with the fix in its message. */
export async function launchChromium(): Promise<Browser> {
  if (!found) throw new Error(BROWSER_SKIP || 'no browser');
  if (!existsSync(`${WEB_DIST}index.html`)) {
    throw new Error(`the settings page is not built (no ${WEB_DIST}index.html): run \`npm run build\` first`);
  }
  return chromium.launch({
    executablePath: found,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
