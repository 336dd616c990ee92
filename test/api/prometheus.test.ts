// GET /metrics in Prometheus's text format, read with an independent parser
// (parse-prometheus-text-format, not prom-client's own), against what the JSON API says at
// the same moment: every numeric topic, the kWh totals, plugin health, process metrics.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import parsePrometheusTextFormat, { type MetricFamily } from 'parse-prometheus-text-format';
import type { Metric, PluginsResponse } from '@heliograph/core/api-types';
import { jsonBody, startTestServer, statusWhen, type TestServer } from '../helpers/server.js';

const server = await startTestServer({
  bundled: ['simulator'],
  fixtures: ['flaky'],
  plugins: [
    { id: 'sim', plugin: 'simulator', devices: ['inverter_1', 'battery_1'], config: { demoForecast: false } },
    { id: 'broken', plugin: 'flaky', config: { failures: 1_000_000, intervalMs: 50 } },
  ],
});
await statusWhen(server, 'broken', (s) => s.state === 'failed');

async function token(s: TestServer, scope: string): Promise<string> {
  const res = await s.api('/api/v1/tokens', jsonBody({ name: `prometheus-${scope}`, scope }));
  return ((await res.json()) as { token: string }).token;
}

async function scrape(
  s: TestServer,
  auth?: string | null,
): Promise<{ res: Response; families: Map<string, MetricFamily> }> {
  const res = await s.api('/metrics', { auth });
  const text = await res.text();
  if (res.status === 200) checkGrammar(text);
  const families = res.status === 200 ? parsePrometheusTextFormat(text) : [];
  return { res, families: new Map(families.map((f) => [f.name, f])) };
}

/** Every line against the text format's grammar (version 0.0.4): a comment, a sample or empty. */
const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const LABEL = '[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\\\\n]|\\\\[\\\\"n])*"';
const VALUE = '(?:NaN|[+-]Inf|[+-]?(?:\\d+\\.?\\d*|\\.\\d+)(?:[eE][+-]?\\d+)?)';
const SAMPLE = new RegExp(`^${NAME}(?:\\{(?:${LABEL}(?:,${LABEL})*,?)?\\})? ${VALUE}(?: -?\\d+)?$`);
const COMMENT = new RegExp(`^# (?:HELP ${NAME} .*|TYPE ${NAME} (?:counter|gauge|histogram|summary|untyped))$`);
function checkGrammar(text: string): void {
  assert.ok(text.endsWith('\n'), 'the exposition ends with a line feed');
  for (const line of text.slice(0, -1).split('\n'))
    assert.ok(line === '' || SAMPLE.test(line) || COMMENT.test(line), `not in the exposition grammar: ${line}`);
}

function family(families: Map<string, MetricFamily>, name: string): MetricFamily {
  const found = families.get(name);
  assert.ok(found, `${name} is exported`);
  return found;
}

test('without credentials /metrics is refused; a read token scrapes it', async () => {
  const refused = await scrape(server, null);
  assert.equal(refused.res.status, 401);
  const { res, families } = await scrape(server, `Bearer ${await token(server, 'read')}`);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type')!, /^text\/plain; version=0\.0\.4/);
  // The first scrape builds the registry: the event loop's mean lag has no measurement yet.
  assert.ok(
    Number.isNaN(Number(family(families, 'nodejs_eventloop_lag_mean_seconds').metrics[0]!.value)),
    'a not-yet-measured gauge reads NaN (and the grammar check above holds its spelling)',
  );
  assert.ok(families.size > 10);
});

test('every numeric topic of the snapshot is a gauge labelled by topic, device and unit', async () => {
  // Settings and Info rows do not move between the two reads; live readings may.
  const { families } = await scrape(server);
  const snapshot = (await (await server.api('/api/v1/metrics')).json()) as Metric[];
  const gauge = family(families, 'heliograph_topic_value');
  assert.equal(gauge.type, 'GAUGE');
  const byTopic = new Map(gauge.metrics.map((m) => [m.labels!.topic!, m]));
  const numeric = snapshot.filter((m) => typeof m.value === 'number');
  assert.ok(numeric.length > 10);
  assert.deepEqual([...byTopic.keys()].sort(), numeric.map((m) => m.topic).sort());
  for (const metric of numeric) {
    const sample = byTopic.get(metric.topic)!;
    assert.equal(sample.labels!.device, metric.topic.split('/')[0]);
    assert.equal(sample.labels!.unit, metric.unit);
    assert.ok(Number.isFinite(Number(sample.value)), `${metric.topic}: ${sample.value}`);
    if (metric.group !== 'Status') assert.equal(Number(sample.value), metric.value, metric.topic);
  }
  // Text and on/off topics are not gauges.
  const text = snapshot.find((m) => typeof m.value === 'string');
  assert.ok(text && !byTopic.has(text.topic));
});

test('the kWh totals, with their period and its start', async () => {
  const { families } = await scrape(server);
  const snapshot = (await (await server.api('/api/v1/metrics?topic=total/*')).json()) as Metric[];
  const totals = snapshot.filter((m) => m.unit === 'kWh');
  assert.equal(totals.length, 6);
  const energy = family(families, 'heliograph_energy_kwh');
  assert.deepEqual(energy.metrics.map((m) => m.labels!.topic).sort(), totals.map((m) => m.topic).sort());
  for (const sample of energy.metrics) {
    assert.equal(sample.labels!.period, server.config.energy.resetPeriod);
    assert.ok(Number(sample.value) >= 0);
  }
  const start = family(families, 'heliograph_energy_period_start_timestamp_seconds').metrics[0]!;
  assert.equal(start.labels!.period, server.config.energy.resetPeriod);
  const startMs = Number(start.value) * 1000;
  assert.ok(startMs <= Date.now() && Date.now() - startMs <= 32 * 86_400_000, `period start ${start.value}`);
});

test('plugin health as GET /api/v1/plugins shows it, history included', async () => {
  const listPlugins = async () => (await (await server.api('/api/v1/plugins')).json()) as PluginsResponse;
  const before = await listPlugins();
  const { families } = await scrape(server);
  const plugins = await listPlugins();
  const up = family(families, 'heliograph_plugin_up');
  for (const p of plugins) {
    const sample = up.metrics.find((m) => m.labels!.id === p.id);
    assert.ok(sample, `plugin ${p.id}`);
    assert.equal(sample.labels!.plugin, p.plugin);
    assert.equal(Number(sample.value), p.state === 'running' ? 1 : 0, p.id);
    const states = family(families, 'heliograph_plugin_state').metrics.filter((m) => m.labels!.id === p.id);
    assert.deepEqual(
      states.filter((m) => Number(m.value) === 1).map((m) => m.labels!.state),
      [p.state],
    );
  }
  assert.ok(plugins.some((p) => p.id === 'history'));
  const errors = family(families, 'heliograph_plugin_last_error_info').metrics;
  const broken = errors.find((m) => m.labels!.id === 'broken');
  assert.match(broken?.labels?.error ?? '', /device timeout #\d+/);
  assert.ok(!errors.some((m) => m.labels!.id === 'sim'));
  const polled = family(families, 'heliograph_plugin_last_poll_timestamp_seconds').metrics;
  // The simulator polls on: the scraped poll time lies between the two reads of the list.
  const lastPoll = (list: PluginsResponse) => Date.parse(list.find((p) => p.id === 'sim')!.last_poll!);
  const scraped = Number(polled.find((m) => m.labels!.id === 'sim')?.value) * 1000;
  assert.ok(lastPoll(before) <= scraped && scraped <= lastPoll(plugins), `last poll ${scraped}`);
});

test('process metrics and the build info', async () => {
  const { families } = await scrape(server);
  assert.equal(family(families, 'process_cpu_seconds_total').type, 'COUNTER');
  assert.ok(Number(family(families, 'process_resident_memory_bytes').metrics[0]!.value) > 0);
  assert.ok(families.has('nodejs_heap_size_used_bytes'));
  const info = family(families, 'heliograph_build_info').metrics[0]!;
  assert.equal(info.labels!.site_id, String(server.siteId));
  assert.match(info.labels!.version ?? '', /^\d+\.\d+\.\d+/);
});

test('with prometheus.openScrape the scrape needs no credentials and the route is public', async () => {
  const open = await startTestServer({
    bundled: ['simulator'],
    plugins: [{ id: 'sim', plugin: 'simulator', devices: ['inverter_1'], config: { demoForecast: false } }],
    config: { prometheus: { openScrape: true } },
  });
  const { res, families } = await scrape(open, null);
  assert.equal(res.status, 200);
  assert.ok(families.has('heliograph_topic_value'));
  assert.deepEqual(
    open.routes.filter((r) => r.path === '/metrics'),
    [{ method: 'GET', path: '/metrics', scope: 'public' }],
  );
});
