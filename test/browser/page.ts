import assert from 'node:assert/strict';
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { TestContext } from 'node:test';
import type { Browser, BrowserContextOptions, Page } from 'playwright-core';
import { PASSWORD } from './site.js';

/** Screenshots of every screen go here (git-ignored), for people to look at. */
export const ARTIFACTS = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };
export const SCREENS = ['home', 'devices', 'plugins', 'site', 'access'] as const;

/**
 * A fresh browser context (its own localStorage) and page; page errors fail the test.
 * `options` sets the browser's time zone, locale or colour scheme.
 */
export async function openPage(
  t: TestContext,
  browser: Browser,
  url: string,
  viewport = DESKTOP,
  options: BrowserContextOptions = {},
): Promise<Page> {
  const context = await browser.newContext({ ...options, viewport });
  const page = await context.newPage();
  page.setDefaultTimeout(10_000);
  const errors: string[] = [];
  page.on('pageerror', (err) => errors.push(err.message));
  t.after(async () => {
    await context.close();
    assert.deepEqual(errors, [], 'the page threw');
  });
  await page.goto(url);
  return page;
}

export async function signIn(page: Page, password = PASSWORD): Promise<void> {
  await page.getByLabel('Device password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('navigation', { name: 'Screens' }).waitFor();
}

/** {@link openPage}, signed in with the device password: where most tests of the page start. */
export async function openSignedIn(...args: Parameters<typeof openPage>): Promise<Page> {
  const page = await openPage(...args);
  await signIn(page);
  return page;
}

/** {@link openSignedIn} at desktop size, then the screen `id` opened by its tab. */
export async function openScreen(t: TestContext, browser: Browser, url: string, id: string): Promise<Page> {
  const page = await openSignedIn(t, browser, url);
  await showScreen(page, id);
  return page;
}

/**
 * Waits for the Access screen's backups section to say a restore is done and which backup it
 * put in place (the service restarts meanwhile, hence the longer wait).
 */
export async function restoredShown(page: Page): Promise<void> {
  const backups = page.locator('#backups');
  await backups
    .getByRole('status')
    .filter({ hasText: /^Restored\.$/ })
    .waitFor({ timeout: 60_000 });
  await backups.getByText(/Restored the backup made/).waitFor();
}

/** Opens a screen by its tab, as a user would. */
export async function showScreen(page: Page, id: string): Promise<void> {
  await page.locator(`.tab[data-screen="${id}"]`).click();
  await page.locator(`.tab[data-screen="${id}"][aria-current="page"]`).waitFor();
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: `${ARTIFACTS}${name}.png`, fullPage: true });
}

/** Elements sticking out to the right of the viewport (the page must never scroll sideways). */
export async function horizontalOverflow(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const out: string[] = [];
    if (document.documentElement.scrollWidth > width)
      out.push(`document is ${document.documentElement.scrollWidth} px wide`);
    // Inside a region that scrolls sideways by itself (a wide table) is fine.
    const scrolls = (el: HTMLElement) => {
      for (let p = el.parentElement; p; p = p.parentElement)
        if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX) && p.clientWidth <= width) return true;
      return false;
    };
    for (const el of document.querySelectorAll<HTMLElement>('body *')) {
      const rect = el.getBoundingClientRect();
      if (rect.right > width + 1 && scrolls(el)) continue;
      if (rect.width > 0 && rect.right > width + 1)
        out.push(`${el.tagName.toLowerCase()}.${el.className} ends at ${Math.round(rect.right)} px`);
    }
    return out.slice(0, 10);
  });
}

const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core's serious and critical findings on the page as it is now (WCAG 2 A and AA). */
export async function axeViolations(page: Page): Promise<string[]> {
  // Evaluated through the DevTools protocol, so the page's CSP (no inline scripts) does not block it.
  await page.evaluate(`${AXE}\n;0`);
  const results = await page.evaluate<{
    violations: Array<{ id: string; impact: string; help: string; nodes: Array<{ target: string[] }> }>;
  }>(`axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21aa'] } })`);
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.id} (${v.impact}): ${v.help} at ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}
