// Owns reading a bench suite's flags from argv: a flag's value, and positive integers with a clear error.

/** The value after `flag` in `args`, or undefined when the flag is absent. */
export function flagValue(args: readonly string[], flag: string): string | undefined {
  const at = args.indexOf(flag);
  return at >= 0 ? args[at + 1] : undefined;
}

/** `text` as a positive safe integer; throws naming `flag` otherwise. */
export function positiveFlag(text: string, flag: string): number {
  const n = Number(text);
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`${flag} takes a positive integer, got ${text}`);
  return n;
}
