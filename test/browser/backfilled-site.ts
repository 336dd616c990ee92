import { after } from 'node:test';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from './browser.js';
import { startSite, type Site } from './site.js';

/** A running site and the Chromium that looks at it. */
export interface SiteInBrowser {
  site: Site;
  browser: Browser;
}

/**
 * The real service (`startSite` with `options`: the simulator by default) once its first run,
 * the backfill included, is over, so the page is judged on full history; and a Chromium,
 * closed after the file's tests. Without a browser the file's tests are skipped and use
 * neither, so neither is started.
 */
export async function startBackfilledSite(options?: Parameters<typeof startSite>[0]): Promise<SiteInBrowser> {
  if (BROWSER_SKIP) return {} as SiteInBrowser;
  const site = await startSite(options);
  await site.waitForLog(/backfill complete/);
  const browser = await launchChromium();
  after(() => browser.close());
  return { site, browser };
}
