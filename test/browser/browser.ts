import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

/** The built settings page, from test/dist/browser. */
export const WEB_DIST = fileURLToPath(new URL('../../../web/dist/', import.meta.url));

/**
 * Debian's chromium, headless. A missing browser or an unbuilt page is a failure with the
 * fix in its message, never a silent skip: a skipped browser test looks like a passing one.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) {
    throw new Error(`the browser tests need chromium at ${CHROMIUM}: install it with \`apt-get install -y chromium\` (.ci/run does this on CI)`);
  }
  if (!existsSync(`${WEB_DIST}index.html`)) {
    throw new Error(`the settings page is not built (no ${WEB_DIST}index.html): run \`npm run build\` first`);
  }
  return chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}
