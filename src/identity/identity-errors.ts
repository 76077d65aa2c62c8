// Owns the error codes the identity service raises until they are folded into core/errors.ts.
import { StrataError, type ErrorKind } from '../core/errors.js';

interface PendingCodeInfo {
  readonly kind: ErrorKind;
  readonly doc: string;
}

/**
 * Identity error codes, in the shape of ERROR_CODES. They belong in core/errors.ts (the lead folds
 * them in); until then identityError() gives a StrataError carrying them.
 */
export const IDENTITY_ERROR_CODES = {
  IDENTITY_BODY_INVALID: { kind: 'invalid', doc: 'An authentication request body cannot be parsed as API key credentials.' },
  IDENTITY_CREDENTIALS_INVALID: { kind: 'unauthenticated', doc: 'A username and API key (or tenant) do not authenticate.' },
  IDENTITY_TOKEN_NOT_FOUND: { kind: 'not_found', doc: 'A token to validate or revoke is unknown, expired, revoked or belongs to another tenant.' },
  IDENTITY_USER_INVALID: { kind: 'invalid', doc: 'A username, tenant, role or API key given for a new user is malformed.' },
  IDENTITY_USERNAME_TAKEN: { kind: 'conflict', doc: 'A user with this username already exists.' },
} as const satisfies Record<string, PendingCodeInfo>;

/** An identity error code. */
export type IdentityErrorCode = keyof typeof IDENTITY_ERROR_CODES;

/** A StrataError with an identity code and its kind. */
export function identityError(code: IdentityErrorCode, message: string, details: Record<string, unknown> = {}): StrataError {
  // StrataError's constructor only knows ERROR_CODES; start from INTERNAL and overwrite code and
  // kind so the error travels the one error path (kind → status) unchanged. Once the codes are in
  // ERROR_CODES this becomes `new StrataError(code, message, details)`.
  const error = new StrataError('INTERNAL', message, details);
  Object.defineProperty(error, 'code', { value: code, enumerable: true });
  Object.defineProperty(error, 'kind', { value: IDENTITY_ERROR_CODES[code].kind, enumerable: true });
  return error;
}
