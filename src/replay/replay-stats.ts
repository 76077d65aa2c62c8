// Owns replay's measurements: per-route HDR latency histograms (µs) of 2xx and of error answers, statuses, error codes, points and bytes sent.
import * as hdr from 'hdr-histogram-js';
import { REPLAY_LATENCY_DIGITS, REPLAY_LATENCY_US_MAX } from './replay-limits.js';
import { REPLAY_ROUTES, type ReplayRoute } from './replay-routes.js';

/** How one replayed request ended: a response (any status) or a failure without one. */
export type RequestOutcome =
  | { readonly kind: 'response'; readonly status: number; readonly latencyUs: number }
  /** `code` is the system error code (ECONNRESET, ECONNREFUSED, …) or TIMEOUT. */
  | { readonly kind: 'failure'; readonly code: string };

/** What was sent for one request, besides its outcome. */
export interface SentRequest {
  readonly route: ReplayRoute;
  readonly points: number;
  readonly bytes: number;
  /** Status the recording server answered, to count requests the target answers differently. */
  readonly recordedStatus: number;
}

/** The figures of one route (or of all routes: route "total") as the report holds them. */
export interface RouteSummary {
  readonly route: string;
  readonly requests: number;
  /** Responses with a 2xx status (a 207 partial write included). */
  readonly ok: number;
  /** Responses with another status plus requests that got no response. */
  readonly errors: number;
  /** Responses whose status differs from the recorded one. */
  readonly statusChanged: number;
  /** Latency percentiles of the 2xx answers only: a fast refusal says nothing about the work the target does. */
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  /** Answers with another status than 2xx, and their latencies (requests without an answer have none). */
  readonly errorAnswers: number;
  readonly errorP50Ms: number;
  readonly errorP99Ms: number;
  readonly errorMaxMs: number;
  /** Latencies above REPLAY_LATENCY_US_MAX, recorded at that ceiling (so the percentiles near the top understate them). */
  readonly latencyClamped: number;
  /** Points of ingest requests answered 2xx (all of a 207's points: its answer is not read). */
  readonly points: number;
  /** Points of ingest requests answered otherwise or not at all. */
  readonly pointsRejected: number;
  /** Body bytes of every request sent. */
  readonly bytesSent: number;
  /** Every request sent, per second of the run. */
  readonly requestsPerSecond: number;
  /** 2xx answers per second: the throughput --compare compares. */
  readonly okPerSecond: number;
  /** `points` per second. */
  readonly pointsPerSecond: number;
}

/** The numeric fields of a RouteSummary, for readers that check a report (every one is a finite number >= 0). */
export const ROUTE_SUMMARY_NUMBERS = [
  'requests',
  'ok',
  'errors',
  'statusChanged',
  'p50Ms',
  'p90Ms',
  'p99Ms',
  'p999Ms',
  'maxMs',
  'meanMs',
  'errorAnswers',
  'errorP50Ms',
  'errorP99Ms',
  'errorMaxMs',
  'latencyClamped',
  'points',
  'pointsRejected',
  'bytesSent',
  'requestsPerSecond',
  'okPerSecond',
  'pointsPerSecond',
] as const satisfies ReadonlyArray<Exclude<keyof RouteSummary, 'route'>>;

/** Errors of the whole run by response status and by failure code. */
export interface ErrorCounts {
  readonly byStatus: Readonly<Record<string, number>>;
  readonly byCode: Readonly<Record<string, number>>;
}

/** Collects outcomes while a replay runs; `summarize` reads them out. */
export interface ReplayStats {
  record(request: SentRequest, outcome: RequestOutcome): void;
  /** Per route in REPLAY_ROUTES order (routes with no request left out), then the total; rates over `seconds`. */
  summarize(seconds: number): { readonly routes: RouteSummary[]; readonly totals: RouteSummary; readonly errors: ErrorCounts };
  /** Requests recorded so far, and how many of them were errors (for progress lines). */
  progress(): { readonly requests: number; readonly errors: number };
}

interface RouteCounters {
  /** Latencies of 2xx answers. */
  readonly ok: hdr.Histogram;
  /** Latencies of other answers. */
  readonly failed: hdr.Histogram;
  requests: number;
  errors: number;
  statusChanged: number;
  latencyClamped: number;
  points: number;
  pointsRejected: number;
  bytesSent: number;
}

function latencyHistogram(): hdr.Histogram {
  return hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: REPLAY_LATENCY_US_MAX,
    numberOfSignificantValueDigits: REPLAY_LATENCY_DIGITS as 1 | 2 | 3 | 4 | 5,
    autoResize: false,
  });
}

function newCounters(): RouteCounters {
  return { ok: latencyHistogram(), failed: latencyHistogram(), requests: 0, errors: 0, statusChanged: 0, latencyClamped: 0, points: 0, pointsRejected: 0, bytesSent: 0 };
}

function count(table: Map<string, number>, key: string): void {
  table.set(key, (table.get(key) ?? 0) + 1);
}

/** µs to ms with three decimals (the histogram's resolution, not more). */
function ms(us: number): number {
  return Math.round(us) / 1000;
}

function rate(amount: number, seconds: number): number {
  return seconds > 0 ? Math.round((amount / seconds) * 10) / 10 : 0;
}

/** A percentile in ms, 0 for an empty histogram; never above the max (a percentile is the top of its HDR bucket). */
function percentileMs(h: hdr.Histogram, percentile: number): number {
  return h.totalCount === 0 ? 0 : ms(Math.min(h.getValueAtPercentile(percentile), h.maxValue));
}

function summary(route: string, c: RouteCounters, seconds: number): RouteSummary {
  const h = c.ok;
  const empty = h.totalCount === 0;
  return {
    route,
    requests: c.requests,
    ok: h.totalCount,
    errors: c.errors,
    statusChanged: c.statusChanged,
    p50Ms: percentileMs(h, 50),
    p90Ms: percentileMs(h, 90),
    p99Ms: percentileMs(h, 99),
    p999Ms: percentileMs(h, 99.9),
    maxMs: empty ? 0 : ms(h.maxValue),
    meanMs: empty ? 0 : ms(h.mean),
    errorAnswers: c.failed.totalCount,
    errorP50Ms: percentileMs(c.failed, 50),
    errorP99Ms: percentileMs(c.failed, 99),
    errorMaxMs: c.failed.totalCount === 0 ? 0 : ms(c.failed.maxValue),
    latencyClamped: c.latencyClamped,
    points: c.points,
    pointsRejected: c.pointsRejected,
    bytesSent: c.bytesSent,
    requestsPerSecond: rate(c.requests, seconds),
    okPerSecond: rate(h.totalCount, seconds),
    pointsPerSecond: rate(c.points, seconds),
  };
}

function apply(c: RouteCounters, request: SentRequest, outcome: RequestOutcome): void {
  c.requests++;
  c.bytesSent += request.bytes;
  const ok = outcome.kind === 'response' && outcome.status >= 200 && outcome.status < 300;
  if (ok) c.points += request.points;
  else {
    c.pointsRejected += request.points;
    c.errors++;
  }
  if (outcome.kind === 'failure') return;
  const latencyUs = Math.max(0, Math.round(outcome.latencyUs));
  // A latency past the histogram's range is recorded at its ceiling and counted, so the report says the top is understated.
  if (latencyUs > REPLAY_LATENCY_US_MAX) c.latencyClamped++;
  (ok ? c.ok : c.failed).recordValue(Math.min(latencyUs, REPLAY_LATENCY_US_MAX));
  if (outcome.status !== request.recordedStatus) c.statusChanged++;
}

/** Empty stats for one run. */
export function createReplayStats(): ReplayStats {
  const routes = new Map<ReplayRoute, RouteCounters>();
  const total = newCounters();
  const byStatus = new Map<string, number>();
  const byCode = new Map<string, number>();
  return {
    record(request, outcome) {
      let counters = routes.get(request.route);
      if (counters === undefined) {
        counters = newCounters();
        routes.set(request.route, counters);
      }
      apply(counters, request, outcome);
      apply(total, request, outcome);
      if (outcome.kind === 'failure') count(byCode, outcome.code);
      else if (outcome.status < 200 || outcome.status >= 300) count(byStatus, String(outcome.status));
    },
    summarize(seconds) {
      const present = REPLAY_ROUTES.filter((route) => routes.has(route));
      return {
        routes: present.map((route) => summary(route, routes.get(route) as RouteCounters, seconds)),
        totals: summary('total', total, seconds),
        errors: { byStatus: Object.fromEntries([...byStatus].sort()), byCode: Object.fromEntries([...byCode].sort()) },
      };
    },
    progress() {
      return { requests: total.requests, errors: total.errors };
    },
  };
}
