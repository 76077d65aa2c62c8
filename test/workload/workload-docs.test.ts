// Keeps docs/recording.md's "Generated workloads" section in step with the code: every kind's exact sentences, and every limit it quotes.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inOrderPlan } from '../../src/workload/arrival-order.js';
import { describeNabTiling } from '../../src/workload/nab-recordings.js';
import { buildWorkload, WORKLOAD_KINDS } from '../../src/workload/workload-kinds.js';
import { WORKLOAD_PLOTS_MAX, WORKLOAD_POINTS_MAX, WORKLOAD_RATE_MAX, WORKLOAD_SERIES_MAX, WORKLOAD_TOTAL_POINTS_MAX } from '../../src/workload/workload-limits.js';

const DOC = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'recording.md'), 'utf8');
const SECTION = DOC.slice(DOC.indexOf('## Generated workloads'));
/** The shared NAB folder: 47 CSV recordings holding 321,206 values in all (../shared/workloads/README.md). */
const NAB_RECORDINGS = 47;
const NAB_VALUES = 321_206;
const NAB_VALUES_EACH = 6_000;
const STANDARD = { series: 1_000, points: 2_880, intervalMs: 30_000, seed: 42, endMs: 1_763_990_000_000, batchPoints: 10_000 };

describe('docs/recording.md, Generated workloads', () => {
  it('quotes the values and arrival sentences of every kind exactly', () => {
    expect(SECTION.length).toBeGreaterThan(1_000);
    for (const kind of WORKLOAD_KINDS.filter((k) => k !== 'nab')) {
      const built = buildWorkload({ ...STANDARD, kind });
      expect(SECTION, kind).toContain(`"${built.columns.description}"`);
      expect(SECTION, kind).toContain(`"${built.plan.description}"`);
      expect(SECTION, kind).toContain(`| \`${kind}\` |`);
    }
  });

  it("quotes the NAB tiling sentence for the shared folder's 47 recordings of 321,206 values", () => {
    // A clean clone has no shared folder, so the sentence is made from recordings of the same count and total.
    const lengths = [...Array.from({ length: NAB_RECORDINGS }, () => NAB_VALUES_EACH), NAB_VALUES - (NAB_RECORDINGS - 1) * NAB_VALUES_EACH].slice(1);
    const recordings = lengths.map((n, i) => ({ path: `r${i}.csv`, values: new Float64Array(n) }));
    expect(recordings).toHaveLength(NAB_RECORDINGS);
    expect(SECTION).toContain(`"${describeNabTiling(recordings)}"`);
    expect(SECTION).toContain('| `nab` |');
    expect(SECTION).toContain(`"${inOrderPlan({ series: STANDARD.series, points: STANDARD.points, intervalMs: STANDARD.intervalMs, seed: STANDARD.seed }, STANDARD.batchPoints).description}"`);
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
