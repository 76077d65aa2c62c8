// Owns how the CLI reports a failure: one line with the code and message, exit status 1 or 2.
import { isStrataError } from '../core/errors.js';

/** Prints an error for a person and sets the exit code: 2 for bad input, 1 otherwise. */
export function printError(error: unknown): void {
  if (isStrataError(error)) {
    process.stderr.write(`strata: ${error.code}: ${error.message}\n`);
    process.exitCode = error.kind === 'invalid' || error.kind === 'over_limit' ? 2 : 1;
    return;
  }
  process.stderr.write(`strata: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 1;
}
