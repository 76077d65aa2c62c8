// Owns the words of a failed HTTP(S) exchange: the status an unavailable remote.http result shows for a socket, TLS or protocol error.

/** Socket error codes and what they mean to whoever reads a check's status. */
const SOCKET_REASONS: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ECONNABORTED: 'connection aborted',
  EPIPE: 'connection closed while sending',
  ETIMEDOUT: 'connection timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  EHOSTDOWN: 'host down',
  EADDRNOTAVAIL: 'address not available',
  HPE_HEADER_OVERFLOW: 'response headers too large',
};

/**
 * Certificate verification failures (OpenSSL's codes plus Node's host name check): their
 * messages are short, fixed sentences such as `certificate has expired` and are shown as they are.
 */
const CERTIFICATE_CODES = new Set([
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'INVALID_CA',
  'PATH_LENGTH_EXCEEDED',
  'INVALID_PURPOSE',
  'HOSTNAME_MISMATCH',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** Longest piece of an error message a status repeats. */
const MESSAGE_LENGTH_MAX = 200;

/** A string field of an error, if it has one. */
function field(error: unknown, name: string): string | undefined {
  const value = (error as Record<string, unknown> | null)?.[name];
  return typeof value === 'string' ? value : undefined;
}

/** The message cut to MESSAGE_LENGTH_MAX characters on one line. */
function shortMessage(error: unknown): string {
  const message = field(error, 'message') ?? 'unknown error';
  return message.replace(/\s+/g, ' ').slice(0, MESSAGE_LENGTH_MAX);
}

/**
 * Why an exchange failed, in words, from a Node socket, TLS, parser or request error. Messages
 * are repeated only for certificate failures (fixed sentences naming the certificate's host
 * names, never request data); other errors are named by their code, so no header value, address
 * or credential of the request can reach a status.
 */
export function failureReason(error: unknown): string {
  const code = field(error, 'code') ?? '';
  if (code === 'ECONNRESET' && field(error, 'message') === 'socket hang up') return 'connection closed before a response';
  const known = SOCKET_REASONS[code];
  if (known !== undefined) return known;
  if (CERTIFICATE_CODES.has(code)) return shortMessage(error);
  if (code === 'EPROTO' || code.startsWith('ERR_SSL_') || code.startsWith('ERR_TLS_')) {
    return `TLS handshake failed: ${field(error, 'reason') ?? code}`;
  }
  if (code.startsWith('HPE_')) return `invalid HTTP response (${code})`;
  if (code === 'ERR_INVALID_CHAR' || code === 'ERR_INVALID_HTTP_TOKEN' || code === 'ERR_UNESCAPED_CHARACTERS') return `invalid request (${code})`;
  return code === '' ? 'request failed' : `request failed (${code})`;
}
