// Owns the values alarm criteria compare: operands read from the current and previous results, and the comparison rules.
import type { CompareOp, Operand } from '../alarm-language/ast.js';
import type { CheckResult } from '../check-result.js';
import { matchSafe } from '../safe-pattern.js';
import { valueText } from './status-text.js';

/** A value an operand yields; undefined when it is missing (no such metric, no previous result...). */
export type CriteriaValue = number | string | undefined;

/** The two results one evaluation sees: this run and the same zone's run before it. */
export interface EvaluationInput {
  readonly current: CheckResult;
  readonly previous: CheckResult | null;
}

const DECIMAL = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;

/** The number a value stands for: a finite number, or a string holding decimal number text; else undefined. */
export function numeric(value: CriteriaValue): number | undefined {
  if (typeof value === 'number') return Number.isFinite(value) ? value : undefined;
  if (typeof value === 'string' && DECIMAL.test(value.trim())) return Number(value.trim());
  return undefined;
}

/** `result.metrics[name].data`, or undefined when the result or metric is missing or the number is not finite. */
export function metricValue(result: CheckResult | null, name: string): CriteriaValue {
  if (result === null || !Object.hasOwn(result.metrics, name)) return undefined;
  const data = result.metrics[name]?.data;
  if (typeof data === 'number') return Number.isFinite(data) ? data : undefined;
  return typeof data === 'string' ? data : undefined;
}

/** rate(m): (v1 − v0) / ((t1 − t0) / 1000) per second; needs both values as numbers and t1 > t0. */
function rate(input: EvaluationInput, name: string): CriteriaValue {
  const { current, previous } = input;
  if (previous === null || current.timestampMs <= previous.timestampMs) return undefined;
  const v1 = numeric(metricValue(current, name));
  const v0 = numeric(metricValue(previous, name));
  if (v1 === undefined || v0 === undefined) return undefined;
  return (v1 - v0) / ((current.timestampMs - previous.timestampMs) / 1000);
}

/** The value of one operand for this evaluation. */
export function operandValue(operand: Operand, input: EvaluationInput): CriteriaValue {
  switch (operand.kind) {
    case 'number':
    case 'string':
      return operand.value;
    case 'metric':
      return metricValue(input.current, operand.name);
    case 'previous':
      return metricValue(input.previous, operand.metric.name);
    case 'rate':
      return rate(input, operand.metric.name);
    case 'percentage': {
      const part = numeric(operandValue(operand.part, input));
      const whole = numeric(operandValue(operand.whole, input));
      if (part === undefined || whole === undefined || whole === 0) return undefined;
      return (part / whole) * 100;
    }
  }
}

function ordered(op: '>=' | '<=' | '>' | '<', left: number, right: number): boolean {
  if (op === '>=') return left >= right;
  if (op === '<=') return left <= right;
  if (op === '>') return left > right;
  return left < right;
}

/**
 * One comparison. A missing operand makes it false, whatever the operator (nregex too).
 * regex/nregex match the left value's text (numbers as decimal text) against the pattern.
 * == and != compare two numbers numerically, two strings as text, and a number with a string
 * as the number's decimal text against the string. <, <=, >, >= compare numerically: a string
 * holding decimal number text counts as its number, any other string makes the comparison false.
 */
export function compareValues(op: CompareOp, left: CriteriaValue, right: CriteriaValue, pattern: RegExp | undefined): boolean {
  if (left === undefined || right === undefined) return false;
  if (op === 'regex' || op === 'nregex') {
    if (pattern === undefined) return false;
    const matched = matchSafe(pattern, valueText(left));
    return op === 'regex' ? matched : !matched;
  }
  if (op === '==' || op === '!=') {
    const same = typeof left === 'number' && typeof right === 'number' ? left === right : valueText(left) === valueText(right);
    return op === '==' ? same : !same;
  }
  const l = numeric(left);
  const r = numeric(right);
  return l !== undefined && r !== undefined && ordered(op, l, r);
}
