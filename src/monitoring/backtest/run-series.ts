// Owns the `@run` series of a check: string points saying whether a stored run was available and why not (sparse for remote checks: only where metric points do not already say it), so a backtest can rebuild availability.
import { assert } from '../../core/assert.js';
import { STRING_VALUE_LENGTH_MAX } from '../../core/limits.js';
import { STATUS_MESSAGE_LENGTH_MAX } from '../alarm-language/language-limits.js';
import type { CheckResult } from '../check-result.js';
import { checkMetricSeries, remoteMetricName, RUN_METRIC } from '../check-metrics.js';
import { CHECK_FAILED_PREFIX } from '../alarms/status-text.js';

/** Longest zone id an agent check's run point carries (URI-encoded); a longer one is left out. */
export const RUN_ZONE_LENGTH_MAX = 64;

const UP = 'up';
const DOWN = 'down';
/** Text before the status of an unavailable run: `down:` plus, for an agent check, `@<zone>` at most. */
const HEAD_LENGTH_MAX = DOWN.length + 1 + RUN_ZONE_LENGTH_MAX + 1;
/** The status kept of an unavailable run: what fits the engine's string values after the head. */
export const RUN_STATUS_LENGTH_MAX = STRING_VALUE_LENGTH_MAX - HEAD_LENGTH_MAX;
// Every verdict text evaluation derives from a status is at most STATUS_MESSAGE_LENGTH_MAX long, so
// the kept prefix gives the same verdict as the whole status did.
assert(CHECK_FAILED_PREFIX.length + STATUS_MESSAGE_LENGTH_MAX <= RUN_STATUS_LENGTH_MAX, 'a kept status yields the same verdict text');

/** What a run point says: availability, the status of an unavailable run, and (agent checks) the zone that carried it. */
export interface RunFacts {
  readonly available: boolean;
  /** The run's status when unavailable (cut to RUN_STATUS_LENGTH_MAX); '' when available. */
  readonly status: string;
  /** The zone an agent check's result came through; undefined when the point does not say. */
  readonly zoneId?: string;
}

/** `text` cut to `max` UTF-16 units, never splitting a surrogate pair. */
function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const last = text.charCodeAt(max - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? max - 1 : max);
}

/** A zone as the point carries it (URI-encoded), or '' when it is too long to carry or not well-formed text. */
export function zoneText(zoneId: string): string {
  let encoded: string;
  try {
    encoded = encodeURIComponent(zoneId);
  } catch {
    // A lone surrogate has no URI form.
    return '';
  }
  return encoded.length <= RUN_ZONE_LENGTH_MAX ? encoded : '';
}

/**
 * The run point's value: `up`, or `down:<status>`. An agent check's point also names the zone
 * its result came through (the series has no zone): `up@<zone>`, `down@<zone>:<status>`, the
 * zone URI-encoded so it holds no `@` or `:`. At most STRING_VALUE_LENGTH_MAX characters.
 */
export function runValue(result: Pick<CheckResult, 'available' | 'status' | 'monitoringZoneId'>, withZone: boolean): string {
  const zone = withZone ? zoneText(result.monitoringZoneId) : '';
  const at = withZone && zone !== '' ? `@${zone}` : '';
  if (result.available) return `${UP}${at}`;
  return `${DOWN}${at}:${cut(result.status, RUN_STATUS_LENGTH_MAX)}`;
}

/** What a run point's value says; null for a value this module did not write. */
export function parseRunValue(value: string): RunFacts | null {
  let rest: string;
  let available: boolean;
  if (value.startsWith(UP)) [available, rest] = [true, value.slice(UP.length)];
  else if (value.startsWith(DOWN)) [available, rest] = [false, value.slice(DOWN.length)];
  else return null;
  let zoneId: string | undefined;
  if (rest.startsWith('@')) {
    const end = rest.indexOf(':');
    const encoded = end < 0 ? rest.slice(1) : rest.slice(1, end);
    try {
      zoneId = decodeURIComponent(encoded);
    } catch {
      return null;
    }
    rest = end < 0 ? '' : rest.slice(end);
  }
  if (available) return rest === '' ? { available, status: '', ...(zoneId !== undefined ? { zoneId } : {}) } : null;
  if (!rest.startsWith(':')) return null;
  return { available, status: rest.slice(1), ...(zoneId !== undefined ? { zoneId } : {}) };
}

/**
 * Whether a remote check's result writes its run point. An available result with at least one
 * stored metric point says nothing its metric points do not: the reader takes a (timestamp, zone)
 * with metric points and no run point as available. So only an unavailable result (`down:<status>`,
 * beside whatever metrics it has) or an available one with no stored metric point (`up`) writes
 * one; almost every point of the series would otherwise say `up`. `storesMetric` is false when
 * the result has no metric, or none the engine takes. An agent check's result always writes one
 * (its series has no zone, and the point names the zone that carried it).
 */
export function remoteRunPointNeeded(available: boolean, storesMetric: boolean): boolean {
  return !available || !storesMetric;
}

/** The series of the run points of one check: `<entityId>.<checkId>.<zone>.@run` (remote), `<entityId>.<checkId>.@run` (agent: zone null). */
export function runSeries(entityId: string, checkId: string, zoneId: string | null): string {
  return checkMetricSeries(entityId, checkId, zoneId === null ? RUN_METRIC : remoteMetricName(zoneId, RUN_METRIC));
}
