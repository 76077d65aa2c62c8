// Owns parsing CLI option values (integers, booleans, byte sizes, comma lists) with commander's error type.
import { InvalidArgumentError, Option } from 'commander';

/** A parser for an integer option between `min` and `max`. */
export function integerIn(min: number, max: number): (text: string) => number {
  return (text) => {
    const value = Number(text);
    if (!/^\d+$/.test(text.trim()) || !Number.isSafeInteger(value) || value < min || value > max) {
      throw new InvalidArgumentError(`expected an integer from ${min} to ${max}`);
    }
    return value;
  };
}

/** Parses on/off style booleans: true, false, 1, 0, yes, no, on, off. */
export function parseBoolean(text: string): boolean {
  const value = text.trim().toLowerCase();
  if (['true', '1', 'yes', 'on'].includes(value)) return true;
  if (['false', '0', 'no', 'off'].includes(value)) return false;
  throw new InvalidArgumentError('expected true or false');
}

/** Adds comma-separated items to what the option collected so far (repeatable flags; the env variable lists them with commas). */
export function collectList(text: string, previous: string[] = []): string[] {
  return [...previous, ...text.split(',').map((item) => item.trim()).filter((item) => item !== '')];
}

/** `--data <dir>`, the same for every command: the STRATA_DATA environment variable, else ./data. */
export function dataOption(description = 'data directory'): Option {
  return new Option('--data <dir>', description).env('STRATA_DATA').default('./data');
}
