// Owns mirroring a component's own monotonic counters (a stats() snapshot) as Prometheus counters, read at scrape time.
import { Counter, type Registry } from 'prom-client';

/** One counter: the stats field it mirrors, its metric name and its help text. */
export type StatsCounter<T> = readonly [field: keyof T & string, name: string, help: string];

/**
 * Registers one Prometheus counter per entry, each collecting `read()[field]` at scrape time.
 * Components keep plain numeric counters (no prom-client inside them); a Prometheus counter only
 * moves up, so each scrape adds what the component counted since the one before.
 */
export function addStatsCounters<T>(registry: Registry, counters: readonly StatsCounter<T>[], read: () => T): void {
  const counted = new Map<keyof T, number>();
  for (const [field, name, help] of counters) {
    new Counter({
      name,
      help,
      registers: [registry],
      collect() {
        const value = read()[field] as number;
        const seen = counted.get(field) ?? 0;
        if (value > seen) this.inc(value - seen);
        counted.set(field, Math.max(value, seen));
      },
    });
  }
}
