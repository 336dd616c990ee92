import { after } from 'node:test';
import type { Browser, BrowserContext, BrowserContextOptions, Page } from 'playwright-core';
import { BROWSER_SKIP, launchChromium } from './browser.js';
import { PHONE, showScreen, signIn } from './page.js';
import { startSite, type Site } from './site.js';

/** A running site and the Chromium that looks at it. */
export interface SiteInBrowser {
  site: Site;
  browser: Browser;
}

/**
 * The real service (`startSite` with `options`: the simulator by default) and a Chromium,
 * closed after the file's tests. Without a browser the file's tests are skipped and use
 * neither, so neither is started.
 */
export async function startSiteInBrowser(
  options?: Parameters<typeof startSite>[0],
  ready: (site: Site) => Promise<unknown> = () => Promise.resolve(),
): Promise<SiteInBrowser> {
  if (BROWSER_SKIP) return {} as SiteInBrowser;
  const site = await startSite(options);
  await ready(site);
  return { site, browser: await chromiumForFile() };
}

/** Headless Chromium for the file's tests, closed after them. */
export async function chromiumForFile(): Promise<Browser> {
  const browser = await launchChromium();
  after(() => browser.close());
  return browser;
}

/**
 * {@link startSiteInBrowser} once the service's first run, the backfill included, is over, so
 * the page is judged on full history.
 */
export function startBackfilledSite(options?: Parameters<typeof startSite>[0]): Promise<SiteInBrowser> {
  return startSiteInBrowser(options, (site) => site.waitForLog(/backfill complete/));
}

/** A site in a browser and one page, signed in on one screen, that the file's tests share. */
export interface SiteOnScreen extends SiteInBrowser {
  page: Page;
}

/**
 * {@link startSiteInBrowser} and one page kept for all the file's tests (a phone by default),
 * signed in and showing `screen`. `prepare` runs on the context before the page opens (e.g. to
 * grant permissions).
 */
export async function startSiteOnScreen(
  screen: string,
  options?: Parameters<typeof startSite>[0],
  context: BrowserContextOptions = {},
  prepare: (context: BrowserContext, site: Site) => Promise<void> = () => Promise.resolve(),
): Promise<SiteOnScreen> {
  if (BROWSER_SKIP) return {} as SiteOnScreen;
  const { site, browser } = await startSiteInBrowser(options);
  const shared = await browser.newContext({ viewport: PHONE, ...context });
  await prepare(shared, site);
  const page = await shared.newPage();
  page.setDefaultTimeout(10_000);
  await page.goto(site.url);
  await signIn(page);
  await showScreen(page, screen);
  return { site, browser, page };
}
