// Owns how an update body merges onto a stored monitoring object: a key the body leaves out keeps its stored value.

/** `given` when the body has the key (null included), else `kept`: the stored value, or a create's default. */
export function keep<T>(given: T | undefined, kept: T): T {
  return given === undefined ? kept : given;
}
