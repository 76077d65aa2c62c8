// Owns reading a Collected in the collector tests: its metrics by name, numeric values, and the shape every result must have.
import { expect } from 'vitest';
import type { Collected } from '../../../src/agent/collectors/collector.js';
import type { WireMetric } from '../../../src/agent/protocol/messages.js';
import { flattenMetrics } from '../../../src/agent/protocol/wire-metrics.js';

/** The metrics of an available result, by name; asserts the result is available, in the one null dimension, and valid on the wire. */
export function metricsOf(collected: Collected): Readonly<Record<string, WireMetric>> {
  expect(collected.status).toBe('success');
  expect(collected.available).toBe(true);
  expect(collected.metrics).toHaveLength(1);
  const [dimension, metrics] = collected.metrics[0] ?? [undefined, {}];
  expect(dimension).toBeNull();
  // What the endpoint does with a post: every metric must parse as its wire type.
  expect(() => flattenMetrics(collected.metrics)).not.toThrow();
  return metrics;
}

/** The numeric value of a metric. */
export function valueOf(metrics: Readonly<Record<string, WireMetric>>, name: string): number {
  const metric = metrics[name];
  expect(metric, `metric ${name}`).toBeDefined();
  return Number(metric?.v);
}

/** Asserts an unavailable result with no metrics and a status matching `status`. */
export function expectUnavailable(collected: Collected, status: RegExp): void {
  expect(collected.available).toBe(false);
  expect(collected.metrics).toEqual([]);
  expect(collected.status).toMatch(status);
}
