// Owns the identity API's error body: the fault wrapped under its name, as the reference identity service does.
import type { ErrorView } from '../../error-view.js';

// Fault names per status, from the reference (badRequest, unauthorized, itemNotFound,
// methodNotAllowed) and OpenStack identity v2.0 for the rest.
const FAULT_NAMES: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'itemNotFound',
  405: 'methodNotAllowed',
  409: 'conflict',
  413: 'overLimit',
  415: 'badMediaType',
  500: 'identityFault',
  503: 'serviceUnavailable',
};

/** `{"<fault>": {"code": status, "message": ...}}` for an error of the identity API. */
export function identityFaultBody(view: ErrorView): Record<string, unknown> {
  const name = FAULT_NAMES[view.status] ?? 'identityFault';
  return { [name]: { code: view.status, message: view.message } };
}
