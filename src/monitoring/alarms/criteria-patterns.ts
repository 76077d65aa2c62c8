// Owns checking the regex/nregex literals of alarm criteria with compileSafePattern, reporting the literal's place.
import { isStrataError } from '../../core/errors.js';
import { AlarmParseError } from '../alarm-language/parse-error.js';
import { tokenize } from '../alarm-language/tokenizer.js';
import { compileSafePattern } from '../safe-pattern.js';

/**
 * Compiles every regex/nregex literal of `criteria` (already accepted by the parser) with
 * compileSafePattern; the first one it refuses throws AlarmParseError at that literal, so alarm
 * create and update report it like any parse error (MONITORING_ALARM_PARSE_FAILED with line,
 * column and token).
 */
export function checkCriteriaPatterns(criteria: string): void {
  const tokens = tokenize(criteria);
  for (let i = 0; i + 1 < tokens.length; i++) {
    const op = tokens[i];
    const literal = tokens[i + 1];
    if (op === undefined || literal === undefined || op.kind !== 'ident' || (op.text !== 'regex' && op.text !== 'nregex')) continue;
    if (literal.kind !== 'string' || typeof literal.value !== 'string') continue;
    try {
      compileSafePattern(literal.value);
    } catch (error) {
      if (!isStrataError(error) || error.code !== 'MONITORING_PATTERN_UNSAFE') throw error;
      const { position, line, column, text } = literal;
      throw new AlarmParseError(`unsafe regular expression (${String(error.details['reason'])}): ${error.message}`, { position, line, column, token: text });
    }
  }
}
