// Owns the Graphite plaintext listener's Prometheus metrics on the server's registry: open connections and the listener's counters, read once per scrape.
import { Gauge, type Registry } from 'prom-client';
import type { GraphiteListenerStats } from '../protocols/graphite-listener.js';
import { addStatsCounters, type StatsCounter } from './stats-counters.js';

/** Counter name and help of each monotonic field of the listener's stats. */
const COUNTERS: readonly StatsCounter<GraphiteListenerStats>[] = [
  ['pointsAccepted', 'strata_graphite_points_accepted_total', 'Graphite plaintext points the store made durable.'],
  ['pointsRejected', 'strata_graphite_points_rejected_total', 'Graphite plaintext lines dropped as malformed, and points the store refused.'],
  ['pointsSkipped', 'strata_graphite_points_skipped_total', 'Graphite plaintext points with a NaN or infinite value, which Strata does not store.'],
  ['linesTooLong', 'strata_graphite_lines_too_long_total', 'Graphite plaintext lines longer than GRAPHITE_LINE_BYTES_MAX, dropped unread.'],
  ['connectionsRefused', 'strata_graphite_connections_refused_total', 'Graphite plaintext connections closed on arrival: GRAPHITE_CONNECTIONS_MAX were open.'],
  ['pointsDropped', 'strata_graphite_points_dropped_total', 'Graphite plaintext points read but never written: the store failed, or stayed unavailable until shutdown.'],
];

/** Adds the Graphite listener's metrics to `registry`; `stats` is read once per scrape. */
export function addGraphiteMetrics(registry: Registry, stats: () => GraphiteListenerStats): void {
  let reading: GraphiteListenerStats | undefined;
  const read = (): GraphiteListenerStats => (reading ??= stats());
  new Gauge({
    name: 'strata_graphite_connections',
    help: 'Open Graphite plaintext connections.',
    registers: [registry],
    collect() {
      // The first metric of a scrape takes a fresh reading.
      reading = undefined;
      this.set(read().connections);
    },
  });
  addStatsCounters(registry, COUNTERS, read);
}
