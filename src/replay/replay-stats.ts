// Owns replay's measurements: per-route HDR latency histograms (µs), statuses, error codes, points and bytes sent.
import * as hdr from 'hdr-histogram-js';
import { REPLAY_LATENCY_DIGITS, REPLAY_LATENCY_US_MAX } from '../recording/recording-limits.js';
import { REPLAY_ROUTES, type ReplayRoute } from './replay-transform.js';

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
  readonly p50Ms: number;
  readonly p90Ms: number;
  readonly p99Ms: number;
  readonly p999Ms: number;
  readonly maxMs: number;
  readonly meanMs: number;
  readonly points: number;
  readonly bytesSent: number;
  readonly requestsPerSecond: number;
  readonly pointsPerSecond: number;
}

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
  readonly histogram: hdr.Histogram;
  requests: number;
  ok: number;
  errors: number;
  statusChanged: number;
  points: number;
  bytesSent: number;
}

function newCounters(): RouteCounters {
  const histogram = hdr.build({
    lowestDiscernibleValue: 1,
    highestTrackableValue: REPLAY_LATENCY_US_MAX,
    numberOfSignificantValueDigits: REPLAY_LATENCY_DIGITS as 1 | 2 | 3 | 4 | 5,
    autoResize: false,
  });
  return { histogram, requests: 0, ok: 0, errors: 0, statusChanged: 0, points: 0, bytesSent: 0 };
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

function summary(route: string, c: RouteCounters, seconds: number): RouteSummary {
  const h = c.histogram;
  const empty = h.totalCount === 0;
  // A percentile is the top of its HDR bucket, which can lie above the largest value recorded: never report it above the max.
  const at = (percentile: number): number => (empty ? 0 : ms(Math.min(h.getValueAtPercentile(percentile), h.maxValue)));
  return {
    route,
    requests: c.requests,
    ok: c.ok,
    errors: c.errors,
    statusChanged: c.statusChanged,
    p50Ms: at(50),
    p90Ms: at(90),
    p99Ms: at(99),
    p999Ms: at(99.9),
    maxMs: empty ? 0 : ms(h.maxValue),
    meanMs: empty ? 0 : ms(h.mean),
    points: c.points,
    bytesSent: c.bytesSent,
    requestsPerSecond: rate(c.requests, seconds),
    pointsPerSecond: rate(c.points, seconds),
  };
}

function apply(c: RouteCounters, request: SentRequest, outcome: RequestOutcome): void {
  c.requests++;
  c.points += request.points;
  c.bytesSent += request.bytes;
  if (outcome.kind === 'failure') {
    c.errors++;
    return;
  }
  // Latencies past the histogram's range are clamped to it: they still count, at its ceiling.
  c.histogram.recordValue(Math.min(Math.max(0, Math.round(outcome.latencyUs)), REPLAY_LATENCY_US_MAX));
  if (outcome.status >= 200 && outcome.status < 300) c.ok++;
  else c.errors++;
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
      else if (outcome.status >= 300) count(byStatus, String(outcome.status));
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
