import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { openSignedIn } from './page.js';
import { basic, SIMULATOR, startSite, type Site } from './site.js';

// The battery plan on the overview, against the real service with the simulator and the
// planner in dry-run (the default demo): the chart of the plan, the actions, the status and
// the switch to active, which the planner then follows.

let browser: Browser;
let site: Site;
if (!BROWSER_SKIP) {
  site = await startSite({
    plugins: [
      { ...SIMULATOR, config: { backfill_days: 0, pollIntervalMs: 1000 } },
      { id: 'planner', plugin: 'planner', devices: ['planner_1'], config: { mode: 'dry-run', checkIntervalMs: 1000 } },
    ],
  });
  browser = await chromiumForFile();
}

async function plannerMode(): Promise<unknown> {
  const answer = await fetch(`${site.url}/api/v1/metrics?topic=planner_1/mode`, {
    headers: { authorization: basic() },
  });
  const metrics = (await answer.json()) as Array<{ topic: string; value: unknown }>;
  return metrics.find((m) => m.topic === 'planner_1/mode')?.value;
}

test(
  'the plan shows with prices, planned charge and actions; the switch makes the planner active',
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openSignedIn(t, browser, site.url);
    const card = page.locator('#plan');
    await card.locator('.plan-chart canvas').waitFor();
    const points = Number(await card.locator('.plan-chart').getAttribute('data-points'));
    assert.ok(points >= 40, `the plan covers the known prices: ${points} quarter hours`);
    const legend = await card.locator('.u-legend').innerText();
    assert.match(legend, /Price/);
    assert.match(legend, /Planned charge/);
    assert.ok((await card.locator('.plan-actions li').count()) >= 1, 'the actions are listed');
    assert.match(await card.locator('.plan-actions li').first().innerText(), /^(Normal|Hold|Charge|Discharge) \d/);
    await page.waitForFunction(() =>
      /^dry-run: /.test(document.querySelector('#plan .plan-status')?.textContent ?? ''),
    );

    const toggle = card.getByRole('switch');
    assert.equal(await toggle.isChecked(), false);
    await toggle.check();
    await card.getByText('Planner active.').waitFor();
    assert.equal(await plannerMode(), 'active');
    await page.waitForFunction(() => /^active: /.test(document.querySelector('#plan .plan-status')?.textContent ?? ''));
  },
);
