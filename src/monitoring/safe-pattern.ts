// Owns compiling user-supplied regular expressions only when they cannot backtrack catastrophically, and running them on bounded text.
import safeRegex from 'safe-regex2';
import { StrataError } from '../core/errors.js';
import { linearEngineFlag } from '../core/linear-regexp.js';
import {
  PATTERN_LENGTH_MAX,
  PATTERN_MATCH_WORK_MAX,
  PATTERN_REPETITIONS_MAX,
  PATTERN_SUBJECT_LENGTH_MAX,
  PATTERN_WEIGHT_MAX,
} from './monitoring-limits.js';
import { patternWeight } from './pattern-weight.js';

/** Why a pattern was refused; the `reason` detail of MONITORING_PATTERN_UNSAFE. */
export type PatternRefusal = 'too_long' | 'invalid_syntax' | 'unsafe' | 'too_complex' | 'not_linear';

function refuse(source: string, reason: PatternRefusal, message: string): StrataError {
  // The pattern is user input, never a secret; cut it so an error body stays small.
  return new StrataError('MONITORING_PATTERN_UNSAFE', message, { pattern: source.slice(0, PATTERN_LENGTH_MAX), reason });
}

/**
 * Compiles a user-supplied regular expression (JavaScript syntax, no flags), refusing with
 * MONITORING_PATTERN_UNSAFE (details `{pattern, reason}`) one longer than PATTERN_LENGTH_MAX
 * (`too_long`), one that does not compile (`invalid_syntax`), one safe-regex2 cannot prove
 * star-height safe with at most PATTERN_REPETITIONS_MAX repetitions (`unsafe`: nested
 * quantifiers such as `(a+)+`, and constructs it cannot analyse such as lookbehind), one that
 * expands to more than PATTERN_WEIGHT_MAX states (`too_complex`), and, where V8's linear-time
 * engine is available (Node 20 has it behind a flag this turns on), one that engine cannot run
 * (`not_linear`). The returned RegExp runs on that engine, so no subject makes it backtrack.
 */
export function compileSafePattern(source: string): RegExp {
  if (typeof source !== 'string' || source.length > PATTERN_LENGTH_MAX) {
    throw refuse(String(source), 'too_long', `A pattern may hold at most ${PATTERN_LENGTH_MAX} characters.`);
  }
  let compiled: RegExp;
  try {
    compiled = new RegExp(source);
  } catch (error) {
    const why = error instanceof Error ? error.message : 'invalid regular expression';
    throw refuse(source, 'invalid_syntax', `The pattern is not a valid regular expression: ${why}`);
  }
  if (!safeRegex(source, { limit: PATTERN_REPETITIONS_MAX })) {
    throw refuse(
      source,
      'unsafe',
      `The pattern could backtrack catastrophically: it nests repetitions, holds more than ${PATTERN_REPETITIONS_MAX} of them, or uses a construct that cannot be checked.`,
    );
  }
  if (patternWeight(source) > PATTERN_WEIGHT_MAX) {
    throw refuse(source, 'too_complex', `The pattern expands to more than ${PATTERN_WEIGHT_MAX} states; shorten its alternatives or repetition counts.`);
  }
  return linearOrSame(source, compiled);
}

/** `compiled` for V8's linear-time engine when this runtime has one; a pattern it cannot run there is refused. */
function linearOrSame(source: string, compiled: RegExp): RegExp {
  const flag = linearEngineFlag();
  if (flag === '') return compiled;
  try {
    return new RegExp(source, flag);
  } catch {
    throw refuse(
      source,
      'not_linear',
      'The pattern cannot run in linear time: back-references, lookaround and large repetition counts are not accepted.',
    );
  }
}

/**
 * How many characters of a subject `pattern` may see: PATTERN_SUBJECT_LENGTH_MAX, less for a
 * pattern whose weight (states) times that length would exceed PATTERN_MATCH_WORK_MAX, so the
 * linear-time match of any pattern costs at most about PATTERN_MATCH_WORK_MAX state steps.
 */
export function subjectLengthFor(pattern: RegExp): number {
  const weight = Math.max(1, patternWeight(pattern.source));
  return Math.min(PATTERN_SUBJECT_LENGTH_MAX, Math.floor(PATTERN_MATCH_WORK_MAX / weight));
}

/** The part of `text` a user-supplied pattern may see: its first subjectLengthFor(pattern) characters (PATTERN_SUBJECT_LENGTH_MAX without a pattern). */
export function boundedSubject(text: string, pattern?: RegExp): string {
  const length = pattern === undefined ? PATTERN_SUBJECT_LENGTH_MAX : subjectLengthFor(pattern);
  return text.length > length ? text.slice(0, length) : text;
}

/** True when `pattern` (from compileSafePattern) matches within the part of `text` boundedSubject lets it see. */
export function matchSafe(pattern: RegExp, text: string): boolean {
  // A global or sticky pattern keeps lastIndex between calls; a fresh search always starts at 0.
  pattern.lastIndex = 0;
  return pattern.test(boundedSubject(text, pattern));
}

/** The first match of `pattern` (from compileSafePattern) within the part of `text` boundedSubject lets it see, or null. */
export function execSafe(pattern: RegExp, text: string): RegExpExecArray | null {
  pattern.lastIndex = 0;
  return pattern.exec(boundedSubject(text, pattern));
}
