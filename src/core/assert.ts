// Owns programmer-error assertions: a failed assertion is a bug, never bad input.

/** Thrown when an internal invariant does not hold; maps to a 500 and one log line. */
export class AssertionFailure extends Error {
  override readonly name = 'AssertionFailure';
}

/** Asserts an internal invariant. Use StrataError for bad input instead. */
export function assert(condition: unknown, message: string): asserts condition {
  if (!condition) throw new AssertionFailure(message);
}
