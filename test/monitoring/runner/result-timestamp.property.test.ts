// Checks the agent result timestamp rule against the engine's bounds: refused exactly when older than the oldest the engine takes plus the margin, or newer than its newest; and the runtime applies it with the real engine's bounds.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isStrataError } from '../../../src/core/errors.js';
import { AGENT_RESULT_RETENTION_MARGIN_MS } from '../../../src/monitoring/monitoring-limits.js';
import { checkResultTimestamp, resultTimestampBounds } from '../../../src/monitoring/runner/result-timestamp.js';

function codeOf(run: () => void): string | undefined {
  try {
    run();
    return undefined;
  } catch (error) {
    return isStrataError(error) ? error.code : 'not a StrataError';
  }
}

describe('checkResultTimestamp', () => {
  it('refuses a timestamp exactly when it is older than the engine oldest plus the margin, or newer than its newest', () => {
    const bounds = fc
      .tuple(fc.integer({ min: 0, max: 2 ** 45 }), fc.integer({ min: AGENT_RESULT_RETENTION_MARGIN_MS, max: 2 ** 36 }), fc.integer({ min: 0, max: 2 ** 30 }))
      .map(([oldestMs, spanMs, aheadMs]) => ({ oldestMs, newestMs: oldestMs + spanMs + aheadMs }));
    fc.assert(
      fc.property(bounds, fc.integer({ min: -3, max: 3 }), fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.boolean(), (engine, nudge, anywhere, atEdge) => {
        const range = resultTimestampBounds(engine);
        expect(range).toEqual({ oldestMs: engine.oldestMs + AGENT_RESULT_RETENTION_MARGIN_MS, newestMs: engine.newestMs });
        const edge = nudge < 0 ? range.oldestMs : range.newestMs;
        const t = atEdge ? edge + nudge : engine.oldestMs + anywhere;
        const code = codeOf(() => checkResultTimestamp(t, engine));
        expect(code).toBe(t < range.oldestMs || t > range.newestMs ? 'AGENT_PARAMS_INVALID' : undefined);
      }),
    );
  });
});
