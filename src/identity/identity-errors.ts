// Owns raising identity errors: the codes are in core/errors.ts like every other code.
import { StrataError, type ErrorCode } from '../core/errors.js';

/** An identity error code. */
export type IdentityErrorCode = Extract<ErrorCode, `IDENTITY_${string}`>;

/** A StrataError with an identity code. */
export function identityError(code: IdentityErrorCode, message: string, details: Record<string, unknown> = {}): StrataError {
  return new StrataError(code, message, details);
}
