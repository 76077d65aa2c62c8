// Owns running one Prometheus remote read query against a Store: candidate names, matcher tests, raw FULL points and older rollup averages, within the request's budget.
import { StrataError } from '../core/errors.js';
import { METRICS_PAGE_MAX, QUERY_POINTS_MAX } from '../core/limits.js';
import { alignDown, DAY_MS } from '../core/time.js';
import { bucketWidthMs } from '../model/resolution.js';
import type { Store } from '../store-types.js';
import type { LabelMatcher, ReadSeries, RemoteReadQuery } from '../wire/prom-read-codec.js';
import { PROM_READ_SAMPLES_MAX, PROM_READ_SCAN_NAMES_MAX, PROM_READ_SERIES_MAX } from '../wire/protocol-limits.js';
import { type Label, parseSeriesMetricName, type SeriesIdentity } from '../wire/series-name.js';
import { compileMatchers, METRIC_NAME_LABEL } from './label-matcher.js';
import { FULL_SLICE_MS } from './remote-read-limits.js';

function tooLarge(what: string, limit: number): StrataError {
  return new StrataError('PROMETHEUS_READ_TOO_LARGE', `The remote read would ${what} (the limit is ${limit}); narrow the selector or the time range.`, { limit });
}

/** What one remote read request has used so far, across all its queries; each count throws PROMETHEUS_READ_TOO_LARGE past its limit. */
export class ReadBudget {
  private names = 0;
  private series = 0;
  private samples = 0;

  /** Counts one metric name tested against a query's matchers. */
  testName(): void {
    if (++this.names > PROM_READ_SCAN_NAMES_MAX) throw tooLarge(`test more than ${PROM_READ_SCAN_NAMES_MAX} metric names`, PROM_READ_SCAN_NAMES_MAX);
  }

  /** Counts one series answered. */
  addSeries(): void {
    if (++this.series > PROM_READ_SERIES_MAX) throw tooLarge(`answer more than ${PROM_READ_SERIES_MAX} series`, PROM_READ_SERIES_MAX);
  }

  /** Counts `count` samples answered. */
  addSamples(count: number): void {
    this.samples += count;
    if (this.samples > PROM_READ_SAMPLES_MAX) throw tooLarge(`answer more than ${PROM_READ_SAMPLES_MAX} samples`, PROM_READ_SAMPLES_MAX);
  }
}

/** Lets the event loop run (I/O, other requests) between two pieces of a long read. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/** Every name of a tenant matching `glob` (all names when undefined), a page at a time, yielding to the event loop between pages. */
async function* namePages(store: Store, tenant: string, glob: string | undefined): AsyncGenerator<readonly string[]> {
  let after: string | undefined;
  for (;;) {
    const page = await store.listMetrics(tenant, { limit: METRICS_PAGE_MAX, ...(glob === undefined ? {} : { glob }), ...(after === undefined ? {} : { after }) });
    yield page.metrics.map((metric) => metric.name);
    if (page.nextAfter === null) return;
    after = page.nextAfter;
    await yieldToEventLoop();
  }
}

/**
 * The names that can hold the query's series. With an equality matcher on `__name__` those are
 * the name itself (a series without labels) and the names that start with `name{` (the labelled
 * series, see seriesMetricName): listMetrics seeks straight to them. A name holding a glob
 * character (`*`, `?`) cannot be looked up that way, and without such a matcher every name is a
 * candidate: the tenant's names are scanned in pages.
 */
async function* candidateNames(store: Store, tenant: string, matchers: readonly LabelMatcher[]): AsyncGenerator<readonly string[]> {
  const name = matchers.find((m) => m.type === 'EQ' && m.name === METRIC_NAME_LABEL)?.value;
  if (name === '') return; // Every series has a name: `__name__=""` selects none.
  if (name === undefined || /[*?]/.test(name)) {
    yield* namePages(store, tenant, undefined);
    return;
  }
  yield (await store.listMetrics(tenant, { glob: name, limit: 1 })).metrics.map((metric) => metric.name);
  yield* namePages(store, tenant, `${name}{*`);
}

/** A series' labels as remote read answers them: `__name__` among them, sorted by name. */
function labelsOf(series: SeriesIdentity): Label[] {
  return [{ name: METRIC_NAME_LABEL, value: series.name }, ...series.labels].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
}

/** The points of one series being gathered. */
interface Points {
  readonly timestampsMs: number[];
  readonly values: number[];
}

/**
 * The end of the next rollup piece from `startMs`: `endMs` when the planner's choice for points =
 * QUERY_POINTS_MAX fits the point limit, else the end of QUERY_POINTS_MAX buckets of the chosen
 * resolution, cut back to a day boundary so that pieces of different resolutions never share a
 * bucket (every bucket width divides a day). Each try is shorter than the one before, so it ends.
 */
function rollupPieceEndMs(store: Store, tenant: string, metric: string, startMs: number, endMs: number): number {
  let pieceEndMs = endMs;
  for (;;) {
    const plan = store.plan({ tenant, metric, from: startMs, to: pieceEndMs, points: QUERY_POINTS_MAX });
    if (!plan.overLimit) return pieceEndMs;
    const widthMs = bucketWidthMs(plan.resolution);
    const fitsMs = alignDown(startMs, widthMs) + QUERY_POINTS_MAX * widthMs;
    const dayMs = alignDown(fitsMs, DAY_MS);
    pieceEndMs = dayMs > startMs ? dayMs : fitsMs;
  }
}

/**
 * The part of [fromMs, toMs) older than the FULL retention, from rollups: the planner picks the
 * resolution (points = QUERY_POINTS_MAX, stepped coarser where a resolution's retention has
 * passed), and each bucket answers as one sample, its average at its start. A bucket starting
 * before `fromMs` (the first one may: it holds `fromMs`) is left out, so every sample is in the
 * asked range; buckets holding only string values too.
 */
async function readRollups(store: Store, tenant: string, metric: string, fromMs: number, toMs: number, into: Points, budget: ReadBudget): Promise<void> {
  let startMs = fromMs;
  while (startMs < toMs) {
    const endMs = rollupPieceEndMs(store, tenant, metric, startMs, toMs);
    const result = await store.query({ tenant, metric, from: startMs, to: endMs, points: QUERY_POINTS_MAX, select: ['average'] });
    const kept = result.values.filter((v) => typeof v.average === 'number' && v.timestamp >= fromMs);
    budget.addSamples(kept.length);
    for (const v of kept) {
      into.timestampsMs.push(v.timestamp);
      into.values.push(v.average as number);
    }
    startMs = endMs;
  }
}

/** The raw numeric points of [fromMs, toMs) at FULL, read in slices the planner's point limit allows; string values are left out. */
async function readFull(store: Store, tenant: string, metric: string, fromMs: number, toMs: number, into: Points, budget: ReadBudget): Promise<void> {
  for (let startMs = fromMs; startMs < toMs; startMs += FULL_SLICE_MS) {
    const endMs = Math.min(toMs, startMs + FULL_SLICE_MS);
    const result = await store.query({ tenant, metric, from: startMs, to: endMs, resolution: 'FULL', select: ['average'] });
    const kept = result.values.filter((v) => v.value === undefined && typeof v.average === 'number');
    budget.addSamples(kept.length);
    for (const v of kept) {
      into.timestampsMs.push(v.timestamp);
      into.values.push(v.average as number);
    }
  }
}

/** The samples of one series in [fromMs, toMs): rollup averages where FULL has expired, then every raw FULL point. */
async function readPoints(store: Store, tenant: string, metric: string, fromMs: number, toMs: number, budget: ReadBudget): Promise<Points> {
  const points: Points = { timestampsMs: [], values: [] };
  const fullFromMs = store.plan({ tenant, metric, from: fromMs, to: toMs, resolution: 'FULL' }).servedFrom;
  if (fromMs < fullFromMs) await readRollups(store, tenant, metric, fromMs, fullFromMs, points, budget);
  if (fullFromMs < toMs) await readFull(store, tenant, metric, fullFromMs, toMs, points, budget);
  return points;
}

/**
 * The series of `tenant` that one remote read query selects, with their samples in [startMs,
 * endMs] (both inclusive, as Prometheus sends them). Candidate names (see candidateNames) are
 * parsed with parseSeriesMetricName and tested against the matchers (compileMatchers, which may
 * throw PROMETHEUS_MATCHER_INVALID). A selected series answers every raw point of the range that
 * the FULL retention still holds; for the part before it, one sample per rollup bucket: the
 * bucket's average at the bucket's start, at the resolution the planner picks. Series with no
 * numeric sample in the range are left out. `budget` is shared by the request's queries and
 * throws PROMETHEUS_READ_TOO_LARGE past its limits; the event loop runs between pages and series.
 */
export async function readSeries(store: Store, tenant: string, query: RemoteReadQuery, budget: ReadBudget): Promise<ReadSeries[]> {
  const selects = compileMatchers(query.matchers);
  const fromMs = query.startMs;
  const toMs = Math.min(query.endMs + 1, Number.MAX_SAFE_INTEGER);
  const found: ReadSeries[] = [];
  if (fromMs >= toMs) return found;
  for await (const names of candidateNames(store, tenant, query.matchers)) {
    for (const metric of names) {
      budget.testName();
      const series = parseSeriesMetricName(metric);
      if (!selects(series)) continue;
      const points = await readPoints(store, tenant, metric, fromMs, toMs, budget);
      await yieldToEventLoop();
      if (points.values.length === 0) continue;
      budget.addSeries();
      found.push({ labels: labelsOf(series), timestampsMs: points.timestampsMs, values: points.values });
    }
  }
  return found;
}
