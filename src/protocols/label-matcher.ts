// Owns compiling the label matchers of a remote read query into one predicate over a series' labels, with Prometheus' semantics.
import safeRegex from 'safe-regex2';
import { StrataError } from '../core/errors.js';
import { linearEngineFlag } from '../core/linear-regexp.js';
import type { LabelMatcher } from '../wire/prom-read-codec.js';
import type { SeriesIdentity } from '../wire/series-name.js';
import { translateRe2 } from './re2-pattern.js';
import { PROM_MATCHER_REPETITIONS_MAX } from './remote-read-limits.js';

/** The label that carries a series' metric name. */
export const METRIC_NAME_LABEL = '__name__';

/** Whether one series is selected. */
export type SeriesPredicate = (series: SeriesIdentity) => boolean;

/** Whether one label value matches. */
export type ValueTest = (value: string) => boolean;

function refuse(pattern: string, reason: string): StrataError {
  return new StrataError('PROMETHEUS_MATCHER_INVALID', `The regular expression ${JSON.stringify(pattern)} is not accepted: ${reason}.`, { pattern });
}

/**
 * Compiles an RE2 pattern as Prometheus applies it: anchored at both ends, `^(?:pattern)$`. It is
 * translated (translateRe2), must compile in JavaScript's Unicode mode, and must be one safe-regex2
 * accepts (no nested repetition, at most PROM_MATCHER_REPETITIONS_MAX repetitions). It then runs
 * on V8's linear-time engine, so no label value makes it backtrack, however it is written: a
 * pattern that engine cannot run is refused (a Unicode class `\p`, a letter outside ASCII under
 * `(?i)`, a character above U+FFFF or `\S` `\D` `\W` inside brackets, a counted repetition of
 * more than about 16). On a runtime without that engine the usual one runs it (as the monitoring
 * room's patterns do). Throws PROMETHEUS_MATCHER_INVALID for every refusal, saying why.
 */
export function compilePattern(pattern: string): ValueTest {
  const js = translateRe2(pattern);
  const anchored = `^(?:${js.unicode})$`;
  let unicode: RegExp;
  try {
    unicode = new RegExp(anchored, js.ignoreCase ? 'iu' : 'u');
  } catch (error) {
    throw refuse(pattern, `it does not compile (${error instanceof Error ? error.message : 'invalid'})`);
  }
  if (!safeRegex(anchored, { limit: PROM_MATCHER_REPETITIONS_MAX })) {
    throw refuse(pattern, `it nests repetitions or holds more than ${PROM_MATCHER_REPETITIONS_MAX} of them, so it could run in exponential time`);
  }
  const flag = linearEngineFlag();
  if (flag === '') return (value) => unicode.test(value);
  if (js.codeUnits === undefined) throw refuse(pattern, `${js.whyNotCodeUnits ?? 'it needs Unicode mode'}; every pattern must run on the linear-time engine`);
  let linear: RegExp;
  try {
    linear = new RegExp(`^(?:${js.codeUnits})$`, flag);
  } catch {
    throw refuse(pattern, 'the linear-time engine cannot run it (a counted repetition above about 16, or of a long group)');
  }
  return (value) => linear.test(value);
}

/** The value of label `name` on a series: its metric name for `__name__`, '' when it has no such label (as Prometheus reads a missing label). */
export function labelValue(series: SeriesIdentity, name: string): string {
  if (name === METRIC_NAME_LABEL) return series.name;
  for (const label of series.labels) if (label.name === name) return label.value;
  return '';
}

/** The test one matcher makes of a label value. */
function valueTest(matcher: LabelMatcher): ValueTest {
  const { type, value } = matcher;
  if (type === 'EQ') return (v) => v === value;
  if (type === 'NEQ') return (v) => v !== value;
  if (type === 'RE' || type === 'NRE') {
    let test: ValueTest;
    try {
      test = compilePattern(value);
    } catch (error) {
      if (error instanceof StrataError) {
        throw new StrataError('PROMETHEUS_MATCHER_INVALID', `The matcher of label ${JSON.stringify(matcher.name)}: ${error.message}`, { ...error.details, name: matcher.name });
      }
      throw error;
    }
    return type === 'RE' ? test : (v) => !test(v);
  }
  throw new StrataError('PROMETHEUS_MATCHER_INVALID', `The matcher of label ${JSON.stringify(matcher.name)} has the unknown type ${JSON.stringify(type)}.`, { name: matcher.name });
}

/**
 * One predicate for a query's matchers: a series is selected when every matcher holds. A label the
 * series lacks has the empty value, so `job=""` selects series without a job and `job!=""` those
 * with one; RE and NRE are anchored at both ends (`job=~"api"` does not select "api-2"). Every
 * pattern is compiled here, once (compilePattern); equality tests run first, being cheaper.
 * Throws PROMETHEUS_MATCHER_INVALID for a pattern that is refused or a type that is unknown.
 */
export function compileMatchers(matchers: readonly LabelMatcher[]): SeriesPredicate {
  const ordered = [...matchers].sort((a, b) => cost(a) - cost(b));
  const tests = ordered.map((matcher) => ({ name: matcher.name, test: valueTest(matcher) }));
  return (series) => {
    for (const { name, test } of tests) if (!test(labelValue(series, name))) return false;
    return true;
  };
}

/** Equality before regular expressions. */
function cost(matcher: LabelMatcher): number {
  return matcher.type === 'EQ' || matcher.type === 'NEQ' ? 0 : 1;
}
