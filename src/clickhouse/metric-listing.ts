// Owns listMetrics on the ClickHouse backend: one bounded read of a tenant's names across every shard, paged by the engine's own scan rule.
import { CLICKHOUSE_METRIC_ROWS_MAX, METRIC_SEARCH_SCAN_NAMES_MAX } from '../core/limits.js';
import { compileGlob } from '../model/glob.js';
import { metricsPageLimit, scanMetricNames } from '../query/metric-scan.js';
import type { SortedNameView } from '../storage/sorted-names.js';
import type { ListMetricsOptions, MetricPage } from '../store-types.js';
import { SERIES } from './schema.js';
import type { ShardClient } from './shard-client.js';
import { sqlString } from './sql-text.js';

interface NameRow {
  readonly metric: string;
  readonly unit: string;
  readonly has_unit: number | string;
  readonly ver: number | string;
}

/** Names already in order, read from ClickHouse: the scan starts where the read did. */
class ReadNames implements SortedNameView {
  constructor(private readonly names: readonly string[]) {}

  get size(): number {
    return this.names.length;
  }

  *namesFrom(): Generator<string, void, undefined> {
    yield* this.names;
  }
}

/**
 * A page of a tenant's metrics. One Distributed read (every shard must answer: a shard down fails
 * the call, never a page missing its names) of at most CLICKHOUSE_METRIC_ROWS_MAX series rows in
 * name order, from the marker and within the glob's literal prefix, with no GROUP BY: a sorted
 * read with a LIMIT stays cheap whatever the tenant's size, where grouping every name after the
 * marker took seconds at millions of names. A name may have several rows (one per unit change and
 * process, until ClickHouse merges them); the newest unit wins, and when the read was cut the last
 * name is left for the next page (its rows may go on). The engine's scanMetricNames then applies
 * the glob, the page size and the scan budget, so both backends page alike. Names sort by their
 * UTF-8 bytes here (ClickHouse's string order), which differs from the engine's UTF-16 order only
 * between characters above U+FFFF and those from U+E000 to U+FFFF.
 */
export async function listMetricsOn(entry: ShardClient, tenant: string, options: ListMetricsOptions): Promise<MetricPage> {
  const limit = metricsPageLimit(options.limit);
  const matcher = options.glob === undefined ? undefined : compileGlob(options.glob);
  const prefix = matcher?.literalPrefix ?? '';
  const fromPrefix = options.after === undefined || options.after < prefix;
  const start = fromPrefix ? `metric >= ${sqlString(prefix)}` : `metric > ${sqlString(options.after as string)}`;
  const inPrefix = prefix === '' ? '' : ` AND startsWith(metric, ${sqlString(prefix)})`;
  const rows = await entry.rows<NameRow>(
    `SELECT metric, unit, has_unit, ver FROM ${SERIES} WHERE tenant = ${sqlString(tenant)} AND ${start}${inPrefix} ORDER BY metric LIMIT ${CLICKHOUSE_METRIC_ROWS_MAX}`,
  );
  const units = newestUnits(rows);
  const names = [...units.keys()];
  const cut = rows.length === CLICKHOUSE_METRIC_ROWS_MAX;
  if (cut && names.length > 1) names.pop();
  const page = scanMetricNames(new ReadNames(names), { matcher, after: options.after, limit, scanNamesMax: METRIC_SEARCH_SCAN_NAMES_MAX });
  // A cut read is not the end of the names: the scan tested them all, and the next page starts after the last.
  const nextAfter = page.nextAfter ?? (cut ? (names.at(-1) ?? null) : null);
  return { metrics: page.names.map((name) => ({ name, unit: units.get(name) ?? null })), nextAfter };
}

/** Each name's unit from its newest row with a unit (rows without one carry version 0), in read order. */
function newestUnits(rows: readonly NameRow[]): Map<string, string | null> {
  const best = new Map<string, { unit: string | null; ver: number }>();
  for (const r of rows) {
    const ver = Number(r.ver);
    const seen = best.get(r.metric);
    if (seen === undefined || ver > seen.ver) best.set(r.metric, { unit: Number(r.has_unit) === 1 ? r.unit : null, ver });
  }
  return new Map([...best].map(([name, { unit }]) => [name, unit]));
}
