// Owns the shapes of a parsed alarm criteria: settings, if/return statements, conditions and operands.

/** The states an alarm can return. */
export const ALARM_STATES = ['OK', 'WARNING', 'CRITICAL'] as const;
/** An alarm state. */
export type AlarmState = (typeof ALARM_STATES)[number];

/** Consistency levels of `:set consistencyLevel`. */
export const CONSISTENCY_LEVELS = ['ONE', 'QUORUM', 'ALL'] as const;
/** A consistency level. */
export type ConsistencyLevel = (typeof CONSISTENCY_LEVELS)[number];

/** Comparison operators; regex and nregex take a regular expression string on the right. */
export const COMPARE_OPS = ['==', '!=', '>=', '<=', '>', '<', 'regex', 'nregex'] as const;
/** A comparison operator. */
export type CompareOp = (typeof COMPARE_OPS)[number];

/** `metric['name']`. */
export interface MetricRef {
  readonly kind: 'metric';
  readonly name: string;
}

/** A value a comparison compares. */
export type Operand =
  | MetricRef
  | { readonly kind: 'number'; readonly value: number }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'previous' | 'rate'; readonly metric: MetricRef }
  | { readonly kind: 'percentage'; readonly part: Operand; readonly whole: Operand };

/** A condition: a comparison, or two conditions joined by && or ||. */
export type Condition =
  | { readonly kind: 'compare'; readonly op: CompareOp; readonly left: Operand; readonly right: Operand }
  | { readonly kind: 'and' | 'or'; readonly left: Condition; readonly right: Condition };

/** A statement: `if (cond) { ... }` or `return new AlarmStatus(STATE, 'message')`. */
export type Statement =
  | { readonly kind: 'if'; readonly condition: Condition; readonly body: readonly Statement[] }
  | { readonly kind: 'return'; readonly state: AlarmState; readonly message: string | null };

/** The settings `:set` may change; absent means the default (consecutiveCount 1, consistencyLevel QUORUM). */
export interface Settings {
  readonly consecutiveCount?: number;
  readonly consistencyLevel?: ConsistencyLevel;
}

/** A whole criteria program. */
export interface Criteria {
  readonly settings: Settings;
  readonly body: readonly Statement[];
}
