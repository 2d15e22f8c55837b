// Types of the Prometheus text-format parser the metrics test uses (the package ships none).
declare module 'parse-prometheus-text-format' {
  /** Metric families of a page in the Prometheus text format. */
  export default function parsePrometheusTextFormat(text: string): unknown[];
}
