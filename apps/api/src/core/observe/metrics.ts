import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/**
 * The process's Prometheus metrics (docs/operations/observability.md, "Metrics"): counters and histograms that
 * any floor adds to as things happen. Figures read from a server's parts when scraped (pools, write-buffer
 * backlog, hot store) are gauges of that server's own registry (`faces/metrics.ts`), merged with this one.
 * Labels are bounded: faces, operation names (procedure paths or a fixed name per route), tables, jobs.
 */
export const processMetrics = new Registry();

let defaultsOn = false;
/** Node's own figures: event-loop delay, GC pauses, heap, CPU, handles. Once per process. */
export function collectProcessMetrics(): void {
  if (defaultsOn) return;
  defaultsOn = true;
  collectDefaultMetrics({ register: processMetrics });
}

const SECONDS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export const httpRequests = new Counter({
  name: 'us_http_requests_total',
  help: 'Requests answered, by face, operation and status class (a batch counts each of its calls).',
  labelNames: ['face', 'operation', 'status'] as const,
  registers: [processMetrics],
});

export const httpDuration = new Histogram({
  name: 'us_http_request_duration_seconds',
  help: 'Time from a request’s arrival to its answer’s end, by face and operation.',
  labelNames: ['face', 'operation'] as const,
  buckets: SECONDS,
  registers: [processMetrics],
});

export const ingestStoredRows = new Counter({
  name: 'us_ingest_stored_rows_total',
  help: 'Rows the write buffer stored in PostgreSQL, by table.',
  labelNames: ['table'] as const,
  registers: [processMetrics],
});

export const ingestRefused = new Counter({
  name: 'us_ingest_refused_total',
  help: 'Reports and batches refused (503, the sender retries) because the write buffer was full.',
  registers: [processMetrics],
});

export const ingestDeadLetters = new Counter({
  name: 'us_ingest_dead_letter_rows_total',
  help: 'Rows PostgreSQL refused for their data, set aside in ingest_dead_letters.',
  labelNames: ['table'] as const,
  registers: [processMetrics],
});

export const ingestFlushFailures = new Counter({
  name: 'us_ingest_flush_failures_total',
  help: 'Flushes that could not store a table (its rows went back into the buffer; retried with backoff).',
  registers: [processMetrics],
});

export const ingestSpilledRows = new Counter({
  name: 'us_ingest_spilled_rows_total',
  help: 'Rows saved to DATA_DIR/ingest-spill at shutdown (saved) and queued again at start-up (restored).',
  labelNames: ['event'] as const,
  registers: [processMetrics],
});

export const collectDropped = new Counter({
  name: 'us_collect_dropped_total',
  help: 'Page reports and batches dropped by the collect budgets (answered 202, not stored), by budget.',
  labelNames: ['reason'] as const,
  registers: [processMetrics],
});

export const propertiesDropped = new Counter({
  name: 'us_properties_dropped_total',
  help: 'Custom properties of page reports dropped at intake (the report still counts): email and digits by the privacy guard, limit when over 30 or too long.',
  labelNames: ['reason'] as const,
  registers: [processMetrics],
});

export const proxyRecordsDropped = new Counter({
  name: 'us_proxy_records_dropped_total',
  help: 'Proxy mode’s request records dropped: too many waiting for the write buffer.',
  registers: [processMetrics],
});

const HOUR = 3600;
export const rollupLag = new Histogram({
  name: 'us_rollup_lag_seconds',
  help: 'For each site-day rolled up: time from the end of its local day to its complete rollup (an hour of grace included).',
  buckets: [1, 1.25, 1.5, 2, 3, 6, 12, 24, 48, 168].map((h) => h * HOUR),
  registers: [processMetrics],
});

export const rollupOldestPending = new Gauge({
  name: 'us_rollup_oldest_pending_seconds',
  help: 'Age (from the end of its local day) of the oldest complete site-day left without its rollup by the last run on this node; 0 when none.',
  registers: [processMetrics],
});

export const jobLastRun = new Gauge({
  name: 'us_job_last_run_timestamp_seconds',
  help: 'When each background job’s last run on this node ended (Unix time).',
  labelNames: ['job'] as const,
  registers: [processMetrics],
});

export const jobLastSuccess = new Gauge({
  name: 'us_job_last_success_timestamp_seconds',
  help: 'When each background job’s last successful run on this node ended (Unix time).',
  labelNames: ['job'] as const,
  registers: [processMetrics],
});

export const jobFailures = new Counter({
  name: 'us_job_failures_total',
  help: 'Background job runs that failed, by job.',
  labelNames: ['job'] as const,
  registers: [processMetrics],
});

export const keptFills = new Counter({
  name: 'us_kept_fills_total',
  help: 'Background fills of kept filtered tables, by outcome (a failed one leaves its questions read raw).',
  labelNames: ['outcome'] as const,
  registers: [processMetrics],
});

export const jobDuration = new Histogram({
  name: 'us_job_duration_seconds',
  help: 'How long each background job’s runs take, by job.',
  labelNames: ['job'] as const,
  buckets: [0.01, 0.1, 0.5, 1, 5, 15, 60, 300, 900],
  registers: [processMetrics],
});
