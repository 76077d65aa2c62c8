// Owns the one configuration error: a StrataError that names the option, what it accepts and what it was given.
import { StrataError, valueText } from './errors.js';

/** The codes a configuration error may carry: the engine's stable STORE_OPTIONS_INVALID, and CONFIG_INVALID for the rest. */
export type ConfigErrorCode = 'CONFIG_INVALID' | 'STORE_OPTIONS_INVALID';

/**
 * The error of an option outside what it accepts: "`option` must be `accepted`; got `value`", with
 * `{option, accepted}` in the details so a program can say which flag or field to fix.
 */
export function configError(option: string, accepted: string, value: unknown, code: ConfigErrorCode = 'CONFIG_INVALID'): StrataError {
  return new StrataError(code, `${option} must be ${accepted}; got ${valueText(value)}`, { option, accepted });
}
