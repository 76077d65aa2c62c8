// Owns whether an agent check result's timestamp is one the engine will still take when its points arrive: the engine's bounds, less a margin at the old end.
import { StrataError } from '../../core/errors.js';
import type { TimestampBounds } from '../../store-types.js';
import { AGENT_RESULT_RETENTION_MARGIN_MS } from '../monitoring-limits.js';

/**
 * The timestamps an agent result may carry, from the engine's bounds now: the oldest end moves in
 * by AGENT_RESULT_RETENTION_MARGIN_MS, because the points reach the engine a little after the
 * post is acknowledged, and an acknowledged result must not be refused then.
 */
export function resultTimestampBounds(engine: TimestampBounds): TimestampBounds {
  return { oldestMs: engine.oldestMs + AGENT_RESULT_RETENTION_MARGIN_MS, newestMs: engine.newestMs };
}

/** Throws AGENT_PARAMS_INVALID (field timestamp) for a result timestamp outside resultTimestampBounds(engine). */
export function checkResultTimestamp(timestampMs: number, engine: TimestampBounds): void {
  const { oldestMs, newestMs } = resultTimestampBounds(engine);
  if (timestampMs < oldestMs) {
    throw new StrataError('AGENT_PARAMS_INVALID', `timestamp ${timestampMs} is older than the engine keeps (oldest taken now: ${oldestMs})`, { field: 'timestamp' });
  }
  if (timestampMs > newestMs) {
    throw new StrataError('AGENT_PARAMS_INVALID', `timestamp ${timestampMs} is further ahead than the engine takes (newest taken now: ${newestMs})`, { field: 'timestamp' });
  }
}
