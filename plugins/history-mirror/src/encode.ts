import protobuf from 'protobufjs';
import snappy from 'snappyjs';
import type { RecordedReading } from '@heliograph/plugins-sdk';

/**
 * The two wire formats. Both name a reading `heliograph_<name>` with the labels `device`,
 * `topic` and `site`: `inverter_1/pv_power` becomes
 * `heliograph_pv_power{device="inverter_1",topic="inverter_1/pv_power",site="615445226"}`,
 * in remote-write directly and in line protocol as measurement `heliograph`, field
 * `pv_power` (which VictoriaMetrics and InfluxDB's Prometheus view join with `_`).
 */

/** prometheus/prompb: WriteRequest { repeated TimeSeries timeseries = 1; } */
const root = protobuf.Root.fromJSON({
  nested: {
    prometheus: {
      nested: {
        WriteRequest: { fields: { timeseries: { rule: 'repeated', type: 'TimeSeries', id: 1 } } },
        TimeSeries: {
          fields: {
            labels: { rule: 'repeated', type: 'Label', id: 1 },
            samples: { rule: 'repeated', type: 'Sample', id: 2 },
          },
        },
        Label: { fields: { name: { type: 'string', id: 1 }, value: { type: 'string', id: 2 } } },
        Sample: { fields: { value: { type: 'double', id: 1 }, timestamp: { type: 'int64', id: 2 } } },
      },
    },
  },
});
export const WriteRequest = root.lookupType('prometheus.WriteRequest');

export interface TimeSeries {
  labels: Array<{ name: string; value: string }>;
  samples: Array<{ value: number; timestamp: number }>;
}

function split(topic: string): { device: string; name: string } {
  const slash = topic.indexOf('/');
  return { device: topic.slice(0, slash), name: topic.slice(slash + 1) };
}

/** A Prometheus metric name of a topic's name part (anything else becomes `_`). */
function metricName(name: string): string {
  return `heliograph_${name.replace(/[^a-zA-Z0-9_]/g, '_')}`;
}

/** The time series of a batch: one per topic, samples in time order. */
export function toTimeSeries(readings: readonly RecordedReading[], siteId: number): TimeSeries[] {
  const byTopic = new Map<string, TimeSeries>();
  for (const r of readings) {
    let series = byTopic.get(r.topic);
    if (!series) {
      const { device, name } = split(r.topic);
      // Labels sorted by name, as remote-write asks.
      series = {
        labels: [
          { name: '__name__', value: metricName(name) },
          { name: 'device', value: device },
          { name: 'site', value: String(siteId) },
          { name: 'topic', value: r.topic },
        ],
        samples: [],
      };
      byTopic.set(r.topic, series);
    }
    series.samples.push({ value: r.value, timestamp: r.time });
  }
  for (const series of byTopic.values()) series.samples.sort((a, b) => a.timestamp - b.timestamp);
  return [...byTopic.values()];
}

/** A remote-write request body: the protobuf WriteRequest, snappy block-compressed. */
export function encodeRemoteWrite(readings: readonly RecordedReading[], siteId: number): Buffer {
  const message = WriteRequest.fromObject({ timeseries: toTimeSeries(readings, siteId) });
  return Buffer.from(snappy.compress(WriteRequest.encode(message).finish()));
}

/** Tag values escape commas, spaces and equals signs. */
function tag(value: string): string {
  return value.replace(/[,= ]/g, (c) => `\\${c}`);
}

/** InfluxDB line protocol, one line per reading, timestamps in ms (`precision=ms`). */
export function encodeInfluxLines(readings: readonly RecordedReading[], siteId: number): string {
  let body = '';
  for (const r of readings) {
    const { device, name } = split(r.topic);
    body += `heliograph,device=${tag(device)},site=${siteId},topic=${tag(r.topic)} ${tag(name)}=${r.value} ${r.time}\n`;
  }
  return body;
}
