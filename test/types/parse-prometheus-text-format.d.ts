// The package ships no types; this is the shape its README documents.
declare module 'parse-prometheus-text-format' {
  export interface Sample {
    value: string;
    labels?: Record<string, string>;
  }
  export interface MetricFamily {
    name: string;
    help: string;
    type: 'GAUGE' | 'COUNTER' | 'SUMMARY' | 'HISTOGRAM' | 'UNTYPED';
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): MetricFamily[];
}
