// Owns evaluating alarm criteria against one check result (and the same zone's previous one): the verdict of one observation.
import type { AlarmState, Condition, Criteria, Settings, Statement } from '../alarm-language/ast.js';
import { parseCriteria } from '../alarm-language/parser.js';
import { tokenize } from '../alarm-language/tokenizer.js';
import { checkCriteria } from '../alarm-rules.js';
import type { CheckResult } from '../check-result.js';
import { compileSafePattern } from '../safe-pattern.js';
import { compareValues, operandValue, type EvaluationInput } from './criteria-values.js';
import { AVAILABLE_STATUS, CHECK_FAILED_PREFIX, DEFAULT_RETURN_STATUS, UNAVAILABLE_STATUS, interpolate, statusText } from './status-text.js';

/** What one observation says about an alarm: a state and the status text that explains it. */
export interface Verdict {
  readonly state: AlarmState;
  readonly status: string;
}

/** Criteria parsed once, with their regular expressions compiled and their return statements' lines. */
export interface CompiledCriteria {
  /** The criteria text, or null for an alarm without criteria. */
  readonly source: string | null;
  readonly criteria: Criteria | null;
  readonly settings: Settings;
  /** The compiled pattern of each regex/nregex comparison. */
  readonly patterns: ReadonlyMap<Condition, RegExp>;
  /** The 1-based source line of each return statement. */
  readonly returnLines: ReadonlyMap<Statement, number>;
}

/** A return statement reached while running the statements, and whether an `if` branch led to it. */
interface Reached {
  readonly statement: Extract<Statement, { kind: 'return' }>;
  readonly conditional: boolean;
}

function collect(statements: readonly Statement[], patterns: Map<Condition, RegExp>, returns: Statement[]): void {
  const visit = (condition: Condition): void => {
    if (condition.kind !== 'compare') {
      visit(condition.left);
      visit(condition.right);
    } else if ((condition.op === 'regex' || condition.op === 'nregex') && condition.right.kind === 'string') {
      patterns.set(condition, compileSafePattern(condition.right.value));
    }
  };
  for (const statement of statements) {
    if (statement.kind === 'return') returns.push(statement);
    else {
      visit(statement.condition);
      collect(statement.body, patterns, returns);
    }
  }
}

/**
 * Parses criteria once and compiles their regex/nregex patterns. Criteria that do not parse, or
 * hold a pattern compileSafePattern refuses, throw MONITORING_ALARM_PARSE_FAILED (the same error
 * alarm create gives). Null (an alarm without criteria) compiles to the availability rule.
 */
export function compileCriteria(source: string | null): CompiledCriteria {
  if (source === null) return { source, criteria: null, settings: {}, patterns: new Map(), returnLines: new Map() };
  checkCriteria(source);
  const criteria = parseCriteria(source);
  const patterns = new Map<Condition, RegExp>();
  const returns: Statement[] = [];
  collect(criteria.body, patterns, returns);
  // Return statements appear in the tree in source order, as the `return` keywords do in the tokens.
  const keywords = tokenize(source).filter((t) => t.kind === 'ident' && t.text === 'return');
  const returnLines = new Map<Statement, number>();
  returns.forEach((statement, i) => returnLines.set(statement, keywords[i]?.line ?? 0));
  return { source, criteria, settings: criteria.settings, patterns, returnLines };
}

function holds(condition: Condition, input: EvaluationInput, patterns: ReadonlyMap<Condition, RegExp>): boolean {
  if (condition.kind !== 'compare') {
    const left = holds(condition.left, input, patterns);
    return condition.kind === 'and' ? left && holds(condition.right, input, patterns) : left || holds(condition.right, input, patterns);
  }
  return compareValues(condition.op, operandValue(condition.left, input), operandValue(condition.right, input), patterns.get(condition));
}

/** Runs statements in order; the first return reached wins; an `if` whose body returns nothing falls through. */
function run(statements: readonly Statement[], input: EvaluationInput, compiled: CompiledCriteria, conditional: boolean): Reached | null {
  for (const statement of statements) {
    if (statement.kind === 'return') return { statement, conditional };
    if (holds(statement.condition, input, compiled.patterns)) {
      const reached = run(statement.body, input, compiled, true);
      if (reached !== null) return reached;
    }
  }
  return null;
}

function verdictOf(reached: Reached, compiled: CompiledCriteria, current: CheckResult): Verdict {
  const { statement, conditional } = reached;
  if (statement.message !== null) return { state: statement.state, status: interpolate(statement.message, current) };
  if (!conditional) return { state: statement.state, status: DEFAULT_RETURN_STATUS };
  return { state: statement.state, status: `Matched return statement on line ${compiled.returnLines.get(statement) ?? 0}` };
}

function failed(current: CheckResult): Verdict {
  return { state: 'CRITICAL', status: statusText(`${CHECK_FAILED_PREFIX}${current.status}`) };
}

/**
 * The verdict of one observation (rules in docs/monitoring-api.md, "Alarm evaluation"):
 * without criteria, available is OK 'Check is available' and unavailable is CRITICAL with the
 * check's status. With criteria, statements run in order and the first return reached wins; its
 * message (with `#{metric}` filled in) is the status, else 'Matched return statement on line N'
 * for a return inside an `if`, 'Matched default return statement' for one outside. No return
 * reached is OK with 'Matched default return statement'. An unavailable result is CRITICAL
 * 'Check failed: <status>' unless a return inside an `if` was reached.
 */
export function evaluateCriteria(compiled: CompiledCriteria, current: CheckResult, previous: CheckResult | null): Verdict {
  if (compiled.criteria === null) {
    if (current.available) return { state: 'OK', status: AVAILABLE_STATUS };
    return { state: 'CRITICAL', status: statusText(current.status === '' ? UNAVAILABLE_STATUS : current.status) };
  }
  const reached = run(compiled.criteria.body, { current, previous }, compiled, false);
  if (!current.available && (reached === null || !reached.conditional)) return failed(current);
  if (reached === null) return { state: 'OK', status: DEFAULT_RETURN_STATUS };
  return verdictOf(reached, compiled, current);
}
