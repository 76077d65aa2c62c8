// Owns the limits of the alarm language, as the reference documents them.

/** Most `if` statements in one criteria. */
export const CONDITIONALS_MAX = 10;
/** Longest metric name inside `metric['...']`. */
export const METRIC_NAME_IN_CRITERIA_MAX = 128;
/** Longest string literal compared against. */
export const STRING_LITERAL_LENGTH_MAX = 80;
/** Longest status message of a return. */
export const STATUS_MESSAGE_LENGTH_MAX = 128;
/** Largest consecutiveCount. */
export const CONSECUTIVE_COUNT_MAX = 5;
/** Deepest nesting of parentheses and blocks, so a hostile criteria cannot exhaust the stack. */
export const NESTING_DEPTH_MAX = 32;
