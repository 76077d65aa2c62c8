// Properties of the check-metric naming scheme: names split back into their parts; nameBefore turns an inclusive marker into an exclusive one.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { METRIC_NAME_LENGTH_MAX } from '../../src/core/limits.js';
import { checkMetricSeries, nameBefore, remoteMetricName } from '../../src/monitoring/check-metrics.js';

const name = fc.string({ unit: fc.oneof(fc.constantFrom('\u0000', '\u0001', '\uffff', 'a', 'b', '.'), fc.string({ minLength: 1, maxLength: 1 })), maxLength: 12 });

describe('check metric names', () => {
  it('n > nameBefore(m) holds exactly when n >= m, for names within the length limit', () => {
    fc.assert(
      fc.property(fc.array(name, { maxLength: 20 }), name, (names, marker) => {
        const after = nameBefore(marker);
        const viaAfter = names.filter((n) => after === undefined || n > after);
        expect(viaAfter).toEqual(names.filter((n) => n >= marker));
      }),
      { numRuns: 500 },
    );
  });

  it('nameBefore of a long name stays below it and above every shorter-ending name', () => {
    const marker = 'b'.repeat(METRIC_NAME_LENGTH_MAX);
    const before = nameBefore(marker) as string;
    expect(before < marker).toBe(true);
    expect(`${'b'.repeat(METRIC_NAME_LENGTH_MAX - 1)}a${'\uffff'.repeat(10)}` <= before).toBe(true);
  });

  it('series names are <entity>.<check>.<metric>, and remote metrics <zone>.<metric>', () => {
    expect(checkMetricSeries('enAb12', 'chCd34', remoteMetricName('mzdfw', 'duration'))).toBe('enAb12.chCd34.mzdfw.duration');
    fc.assert(
      fc.property(fc.stringMatching(/^en[A-Za-z0-9]{8}$/), fc.stringMatching(/^ch[A-Za-z0-9]{8}$/), name, (entity, check, metric) => {
        const [e, c, ...rest] = checkMetricSeries(entity, check, metric).split('.');
        expect([e, c, rest.join('.')]).toEqual([entity, check, metric]);
      }),
    );
  });
});
