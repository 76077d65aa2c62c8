// Owns the metrics and monitoring error body: {type, code, message, details, txnId} with the reference's type names.
import type { ErrorView } from '../../error-view.js';

// Type names per status from the monitoring API's fault table; 405, 409 and 415 are not in that
// table, so they follow its "<name>Error" pattern (documented in docs/http-api.md).
const TYPE_NAMES: Readonly<Record<number, string>> = {
  400: 'badRequest',
  401: 'unauthorizedError',
  403: 'forbiddenError',
  404: 'notFoundError',
  405: 'methodNotAllowedError',
  409: 'conflictError',
  413: 'requestTooLargeError',
  415: 'unsupportedMediaTypeError',
  429: 'rateLimitReached',
  500: 'internalError',
  503: 'systemFailureError',
};

// Codes with a more specific type name in the reference table.
const TYPE_BY_CODE: Readonly<Record<string, string>> = {
  LIST_LIMIT_INVALID: 'invalidLimit',
  MONITORING_CHILDREN_EXIST: 'childrenExistError',
  MONITORING_ALARM_PARSE_FAILED: 'alarmParseError',
  MONITORING_PARENT_NOT_FOUND: 'parentNotFoundError',
  MONITORING_LIMIT_REACHED: 'limitReached',
  MONITORING_AGENT_NOT_CONNECTED: 'agentNotConnected',
};

/** The monitoring type name of an error view. */
function metricsTypeName(view: ErrorView): string {
  return TYPE_BY_CODE[view.code] ?? TYPE_NAMES[view.status] ?? 'internalError';
}

/**
 * `{type, code, message, details, txnId}`: code is the HTTP status as an integer (as the
 * reference's faithful form); details is an object whose `code` is Strata's stable error code.
 */
export function metricsFaultBody(view: ErrorView, txnId: string): Record<string, unknown> {
  return {
    type: metricsTypeName(view),
    code: view.status,
    message: view.message,
    details: { code: view.code, ...view.details },
    txnId,
  };
}
