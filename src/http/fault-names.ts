// Owns the fault names the wrapped-fault APIs (identity, domain listing) share per HTTP status.

/** Names both APIs give these statuses (the reference's fault table; 403, 405 and 415 as identity names them). */
const SHARED_FAULT_NAMES: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'unauthorized',
  403: 'forbidden',
  404: 'itemNotFound',
  405: 'methodNotAllowed',
  413: 'overLimit',
  415: 'badMediaType',
  503: 'serviceUnavailable',
};

/** The fault name of `status`: the API's own name for it, else the shared one, else the API's generic fault. */
export function faultName(status: number, own: Readonly<Record<number, string>>, generic: string): string {
  return own[status] ?? SHARED_FAULT_NAMES[status] ?? generic;
}
