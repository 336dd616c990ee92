import { test } from 'node:test';
import assert from 'node:assert/strict';
import { startBackfilledSite } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import {
  axeViolations,
  DESKTOP,
  horizontalOverflow,
  openPage,
  PHONE,
  SCREENS,
  screenshot,
  showScreen,
  signIn,
} from './page.js';

// Every screen at desktop and phone size: nothing wider than the screen, no serious or
// critical axe-core finding (WCAG 2.1 A/AA: contrast, labels, names, roles), and a
// screenshot in test-artifacts/ for people to look at.

const { site, browser } = await startBackfilledSite();

for (const [size, viewport] of [
  ['phone', PHONE],
  ['desktop', DESKTOP],
] as const) {
  for (const theme of ['light', 'dark'] as const) {
    test(`${size} (${theme}): every screen fits the width and passes axe-core`, { skip: BROWSER_SKIP }, async (t) => {
      const page = await openPage(t, browser, site.url, viewport);
      await page.emulateMedia({ colorScheme: theme, reducedMotion: 'reduce' });
      await page.getByRole('form', { name: 'Sign in' }).waitFor();
      assert.deepEqual(await horizontalOverflow(page), [], 'sign-in overflows');
      assert.deepEqual(await axeViolations(page), [], 'sign-in');
      await screenshot(page, `${size}-${theme}-sign-in`);
      await signIn(page);
      for (const screen of SCREENS) {
        await showScreen(page, screen);
        // Each screen's content is there before it is judged.
        const ready = {
          home: '.chart canvas',
          devices: 'article.device',
          plugins: 'article.plugin',
          site: '.screen-body > *:not(.hint)',
          access: '.token-row',
        }[screen];
        await page.locator(ready).first().waitFor();
        if (screen === 'plugins') await page.locator('article.plugin details summary').first().click();
        assert.deepEqual(await horizontalOverflow(page), [], `${screen} overflows at ${viewport.width} px`);
        assert.deepEqual(await axeViolations(page), [], `${screen}: axe-core`);
        await screenshot(page, `${size}-${theme}-${screen}`);
      }
    });
  }
}
