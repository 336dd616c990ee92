import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Request } from 'playwright-core';
import { startBackfilledSite } from './backfilled-site.js';
import { BROWSER_SKIP } from './browser.js';
import { openPage, signIn } from './page.js';
import { REPO_ROOT } from '../helpers/server.js';

// The Overview's first load with the demo (the checkout's plugins.json: the simulator with
// its backfilled week and the planner in dry-run): every API answer the page receives is
// counted, and the whole stays under 100 KB of JSON with no figure asked for twice.
// "JSON bytes" are the bodies as the page's script receives them (decompressed, what
// response.text() holds); "wire bytes" are the encoded bodies as they crossed the network
// (compressed where the server compressed), headers left out.

const BUDGET_BYTES = 100 * 1024;

interface Counted {
  method: string;
  path: string;
  json: number;
  wire: number;
  encoding: string | null;
}

const demo = JSON.parse(readFileSync(`${REPO_ROOT}/plugins.json`, 'utf8')) as { plugins: unknown[] };
const { site, browser } = await startBackfilledSite({ plugins: demo.plugins });

test(
  "the Overview's first load moves under 100 KB of API JSON and asks for nothing twice",
  { skip: BROWSER_SKIP },
  async (t) => {
    const page = await openPage(t, browser, site.url);
    const pending: Array<Promise<Counted | null>> = [];
    page.on('requestfinished', (request: Request) => {
      const url = new URL(request.url());
      if (!url.pathname.startsWith('/api/v1/')) return;
      pending.push(
        (async () => {
          const response = await request.response();
          if (!response) return null;
          const [body, sizes, encoding] = await Promise.all([
            response.body(),
            request.sizes(),
            response.headerValue('content-encoding'),
          ]);
          return {
            method: request.method(),
            path: url.pathname + url.search,
            json: body.length,
            wire: sizes.responseBodySize,
            encoding,
          };
        })(),
      );
    });
    await signIn(page);
    // The Overview has settled once every card that loads from the API has drawn.
    await page.locator('#energy-card dl.energy:not([aria-busy])').waitFor({ timeout: 30_000 });
    await page.locator('.energy-history .bars-box:not([aria-busy]) svg').waitFor({ timeout: 30_000 });
    // The power chart once drawn (the demo's planner draws a battery plan chart beside it).
    await page
      .getByRole('region', { name: 'Power', exact: true })
      .locator('.chart:not([aria-busy]) canvas')
      .waitFor({ timeout: 30_000 });
    await page.locator('.prices .price-bars').waitFor({ timeout: 30_000 });
    await page.waitForLoadState('networkidle', { timeout: 30_000 });
    // One answer drew both: today's figures on the card and the calendar's first day agree.
    const today = await page.locator('#energy-card dl.energy').innerText();
    assert.match(today, /Solar produced\s+[\d.,]+ k?Wh/);
    assert.equal(await page.locator('.energy-history dl.energy').innerText(), today);
    const counted = (await Promise.all(pending)).filter((c): c is Counted => c !== null);
    const json = counted.reduce((sum, c) => sum + c.json, 0);
    const wire = counted.reduce((sum, c) => sum + c.wire, 0);
    const table = counted
      .map(
        (c) =>
          `${c.method} ${c.path}: ${c.json} B JSON, ${c.wire} B on the wire${c.encoding ? ` (${c.encoding})` : ''}`,
      )
      .join('\n');
    t.diagnostic(`${counted.length} API requests, ${json} B of JSON, ${wire} B on the wire\n${table}`);

    // A figure asked for again differs at most in its time bounds (`to` = now, a moment later).
    const keys = counted.map((c) => {
      const url = new URL(c.path, site.url);
      url.searchParams.delete('from');
      url.searchParams.delete('to');
      return `${c.method} ${url.pathname}${url.search}`;
    });
    const twice = keys.filter((k, i) => keys.indexOf(k) !== i);
    assert.deepEqual(twice, [], `asked for more than once:\n${table}`);
    assert.ok(json < BUDGET_BYTES, `${json} B of API JSON on the first load, over ${BUDGET_BYTES} B:\n${table}`);
  },
);
