import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { BROWSER_SKIP } from './browser.js';
import { chromiumForFile } from './backfilled-site.js';
import { axeViolations, openSignedIn } from './page.js';
import { basic, startSite, type Site } from './site.js';
import { pollUntil } from '../helpers/deadline.js';

// A failing price provider on the Overview: aWATTar's API (a local fake) answers 503, so its
// plugin has an error and no prices; the price card names the provider, the reason, and
// that no good data has arrived, instead of showing old prices or nothing.

let browser: Browser;
let site: Site;
if (!BROWSER_SKIP) {
  const fake = createServer((_req, res) => {
    res.writeHead(503, { 'content-type': 'text/plain' });
    res.end('maintenance');
  });
  await new Promise<void>((resolve) => fake.listen(0, '127.0.0.1', resolve));
  after(() => new Promise<void>((resolve) => fake.close(() => resolve())));
  const { port } = fake.address() as AddressInfo;
  site = await startSite({
    plugins: [{ id: 'prices', plugin: 'awattar', config: { country: 'de', baseUrl: `http://127.0.0.1:${port}` } }],
  });
  browser = await chromiumForFile();
}

test(
  'a failing price provider is named on the Overview with its reason and its last good data',
  { skip: BROWSER_SKIP },
  async (t) => {
    // The service knows of the failure first (its grid answer's status).
    let status: { state: string; message: string | null } | undefined;
    await pollUntil(async () => {
      const res = await fetch(`${site.url}/api/v1/grid`, { headers: { authorization: basic() } });
      status = ((await res.json()) as { status?: { state: string; message: string | null } }).status;
      return { done: status !== undefined && status.state !== 'ok', seen: status };
    }, "the grid answer's status of the failing provider");
    const page = await openSignedIn(t, browser, site.url);
    const notice = page.locator('#prices .provider-status');
    await notice.waitFor();
    const text = await notice.innerText();
    t.diagnostic(text);
    assert.match(text, /^Prices from .+ are (failing|out of date): .+\. /);
    assert.match(text, /No good data received yet\./);
    // The reason is the service's (its state may move from failed to out of date between reads).
    const res = await fetch(`${site.url}/api/v1/grid`, { headers: { authorization: basic() } });
    const later = ((await res.json()) as { status?: { message: string | null } }).status;
    const reasons = [status?.message, later?.message].filter((m): m is string => !!m).map((m) => m.replace(/\.+$/, ''));
    assert.ok(
      reasons.some((r) => text.includes(r)),
      `one of the service's reasons ${JSON.stringify(reasons)} in: ${text}`,
    );
    assert.deepEqual(await axeViolations(page), [], 'axe-core');
  },
);
