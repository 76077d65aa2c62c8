// Keeps docs/recording.md's "Generated workloads" section in step with the code: every kind's exact sentences, and every limit it quotes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { buildWorkload, WORKLOAD_KINDS } from '../../src/workload/workload-kinds.js';
import { WORKLOAD_PLOTS_MAX, WORKLOAD_POINTS_MAX, WORKLOAD_RATE_MAX, WORKLOAD_SERIES_MAX, WORKLOAD_TOTAL_POINTS_MAX } from '../../src/workload/workload-limits.js';

const DOC = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'recording.md'), 'utf8');
const SECTION = DOC.slice(DOC.indexOf('## Generated workloads'));
const STANDARD = { series: 1_000, points: 2_880, intervalMs: 30_000, seed: 42, endMs: 1_763_990_000_000, batchPoints: 10_000 };

describe('docs/recording.md, Generated workloads', () => {
  it('quotes the values and arrival sentences of every kind exactly', () => {
    expect(SECTION.length).toBeGreaterThan(1_000);
    for (const kind of WORKLOAD_KINDS) {
      const built = buildWorkload({ ...STANDARD, kind });
      expect(SECTION, kind).toContain(`"${built.columns.description}"`);
      expect(SECTION, kind).toContain(`"${built.plan.description}"`);
      expect(SECTION, kind).toContain(`| \`${kind}\` |`);
    }
  });

  it('states the limits the code enforces', () => {
    const grouped = (n: number): string => n.toLocaleString('en-US');
    expect(SECTION).toContain(`1 … ${grouped(WORKLOAD_SERIES_MAX)} (\`WORKLOAD_SERIES_MAX\`)`);
    expect(SECTION).toContain(`1 … ${grouped(WORKLOAD_POINTS_MAX)} (\`WORKLOAD_POINTS_MAX\`)`);
    expect(SECTION).toContain(`at most ${grouped(WORKLOAD_TOTAL_POINTS_MAX)} (\`WORKLOAD_TOTAL_POINTS_MAX\`)`);
    expect(SECTION).toContain(`1 … ${grouped(WORKLOAD_RATE_MAX)} (\`WORKLOAD_RATE_MAX\`)`);
    expect(SECTION).toContain(`0 … ${grouped(WORKLOAD_PLOTS_MAX)} (\`WORKLOAD_PLOTS_MAX\`)`);
  });
});
