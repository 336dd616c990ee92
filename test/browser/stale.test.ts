import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { bundleWebModules } from './web-bundle.js';

// A device that stops answering (its readings turn null, as the API sends them) is shown
// as not answering, with its plugin's last error and when it was last heard from, and
// recovers when a value comes back. The page's own modules, bundled alone, in chromium
// (the real service's stale timeout is at least 30 s, too slow for a test).

let browser: Browser;
let bundle = '';
if (!BROWSER_SKIP) {
  bundle = await bundleWebModules(
    'Page',
    "export { LiveStore } from './state/live.ts'; export { mountStaleNotice } from './notices/stale.ts';",
  );
  browser = await chromiumForFile();
}

test(
  'a stale device is named with the reason and its last-seen time, and cleared when it answers',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await browser.newPage();
    t.after(() => page.close());
    await page.setContent('<!doctype html><div id="notice"></div>');
    await page.addScriptTag({ content: bundle });
    await page.evaluate(() => {
      type Metric = { topic: string; group: string; name: string; unit: string; value: unknown };
      const api = (
        window as unknown as {
          Page: { LiveStore: new () => { seed(m: Metric[]): void }; mountStaleNotice(el: Element, ctx: unknown): void };
        }
      ).Page;
      const live = new api.LiveStore();
      const status = {
        id: 'sim',
        plugin: 'simulator',
        kind: 'inverter',
        devices: ['inverter_1'],
        state: 'failed',
        last_error: 'no answer from 192.168.1.20: timed out',
        last_poll: new Date(Date.now() - 120_000).toISOString(),
      };
      const statuses = {
        list: [status],
        forDevice: (d: string) => (status.devices.includes(d) ? status : undefined),
        subscribe: (l: (x: unknown) => void) => (l([status]), () => undefined),
      };
      const reading = (topic: string, value: unknown): Metric => ({
        topic,
        group: 'Status',
        name: topic,
        unit: 'W',
        value,
      });
      live.seed([
        reading('inverter_1/pv_power', 1200),
        reading('inverter_1/load_power', 300),
        reading('total/pv_power', 1200),
      ]);
      api.mountStaleNotice(document.getElementById('notice')!, { live, statuses });
      (window as unknown as { set: (v: unknown) => void }).set = (v) =>
        live.seed([reading('inverter_1/pv_power', v), reading('inverter_1/load_power', v)]);
    });
    const notice = page.locator('#notice');
    assert.equal(await notice.innerText(), '', 'a live device is not flagged');
    await page.evaluate(() => (window as unknown as { set: (v: unknown) => void }).set(null));
    assert.match(
      await notice.innerText(),
      /^Inverter 1 is not answering \(last seen \d+ s ago\): sim: no answer from 192\.168\.1\.20: timed out\. Its values show "—" until it answers again\.$/,
    );
    await page.evaluate(() => (window as unknown as { set: (v: unknown) => void }).set(800));
    assert.equal(await notice.innerText(), '');
  },
);
