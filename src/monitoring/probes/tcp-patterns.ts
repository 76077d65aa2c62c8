// Owns compiling a remote.tcp check's banner_match and body_match patterns, refusing unsafe ones as field errors.
import { isStrataError } from '../../core/errors.js';
import type { CheckDetails } from '../check-types.js';
import { fieldError } from '../monitoring-errors.js';
import { compileSafePattern } from '../safe-pattern.js';

/** The compiled patterns of a remote.tcp check; null where the details give none. */
export interface TcpPatterns {
  readonly banner: RegExp | null;
  readonly body: RegExp | null;
}

/** The pattern in `details[key]` compiled by compileSafePattern; an unsafe one is MONITORING_FIELD_INVALID naming `details.<key>`. */
function patternOf(details: CheckDetails, key: 'banner_match' | 'body_match'): RegExp | null {
  const source = details[key];
  if (typeof source !== 'string') return null;
  try {
    return compileSafePattern(source);
  } catch (error) {
    if (isStrataError(error) && error.code === 'MONITORING_PATTERN_UNSAFE') throw fieldError(`details.${key}`, error.message);
    throw error;
  }
}

/**
 * The banner_match and body_match patterns of remote.tcp details. The check rules call it when
 * a check is saved, so a pattern that could backtrack catastrophically is a 400 naming its key;
 * the probe calls it again on every run (a stored pattern compiled then is known safe).
 */
export function tcpPatternsOf(details: CheckDetails): TcpPatterns {
  return { banner: patternOf(details, 'banner_match'), body: patternOf(details, 'body_match') };
}
