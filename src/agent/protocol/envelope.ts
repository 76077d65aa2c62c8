// Owns reading one protocol line into a request or a response envelope, or the reason it is neither.
import { StrataError } from '../../core/errors.js';
import { AGENT_FIELD_LENGTH_MAX, AGENT_MESSAGE_ID_LENGTH_MAX } from '../agent-limits.js';
import { PROTOCOL_VERSION, type MessageId, type ProtocolErrorBody, type RequestMessage, type ResponseMessage } from './messages.js';

/** What one line holds: a request, a response, or an invalid message with the id to answer (null when it had no valid one). */
export type Envelope =
  | { readonly kind: 'request'; readonly message: RequestMessage }
  | { readonly kind: 'response'; readonly message: ResponseMessage }
  | { readonly kind: 'invalid'; readonly id: MessageId | null; readonly error: StrataError };

type Fields = Readonly<Record<string, unknown>>;

function invalid(id: MessageId | null, message: string): Envelope {
  return { kind: 'invalid', id, error: new StrataError('AGENT_MESSAGE_INVALID', message) };
}

/** True for a message id: a finite number, or a string of at most AGENT_MESSAGE_ID_LENGTH_MAX characters. */
export function isMessageId(value: unknown): value is MessageId {
  return (typeof value === 'number' && Number.isFinite(value)) || (typeof value === 'string' && value.length <= AGENT_MESSAGE_ID_LENGTH_MAX);
}

function isName(value: unknown): value is string {
  return typeof value === 'string' && value.length <= AGENT_FIELD_LENGTH_MAX;
}

function isErrorBody(value: unknown): value is ProtocolErrorBody {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return false;
  const { code, message, type } = value as Fields;
  return typeof code === 'number' && Number.isFinite(code) && isName(message) && (type === undefined || type === null || isName(type));
}

/**
 * Reads one line. An envelope is a request if it has `method`, a response if it has `result` or
 * `error`; v must be PROTOCOL_VERSION; id a finite number or a short string (a response may have id
 * null: the error answer to a line without a readable id); source and target strings of at most
 * AGENT_FIELD_LENGTH_MAX characters. A response without `result` has result null.
 */
export function readEnvelope(line: string): Envelope {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return invalid(null, 'a protocol line is not JSON');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return invalid(null, 'a protocol message is not a JSON object');
  const fields = value as Fields;
  const isRequest = Object.hasOwn(fields, 'method');
  const isResponse = !isRequest && (Object.hasOwn(fields, 'result') || Object.hasOwn(fields, 'error'));
  const { id } = fields;
  if (!isMessageId(id) && !(isResponse && id === null)) {
    return invalid(null, `a protocol message id must be a finite number or a string of at most ${AGENT_MESSAGE_ID_LENGTH_MAX} characters`);
  }
  if (fields.v !== PROTOCOL_VERSION) return invalid(id, `a protocol message must have v "${PROTOCOL_VERSION}"`);
  const { source, target } = fields;
  if (!isName(source) || !isName(target)) return invalid(id, `source and target must be strings of at most ${AGENT_FIELD_LENGTH_MAX} characters`);
  if (isRequest) {
    const { method } = fields;
    if (typeof method !== 'string' || method.length === 0 || method.length > AGENT_FIELD_LENGTH_MAX) return invalid(id, 'method must be a non-empty string');
    if (id === null) return invalid(null, 'a request must have an id');
    return { kind: 'request', message: { v: PROTOCOL_VERSION, id, source, target, method, params: fields.params } };
  }
  if (!isResponse) return invalid(id, 'a protocol message has neither method nor result or error');
  const error = fields.error ?? null;
  if (error !== null && !isErrorBody(error)) return invalid(id, 'error must be null or an object with a numeric code and a message');
  const body = error === null ? null : { code: error.code, message: error.message, ...(typeof error.type === 'string' ? { type: error.type } : {}) };
  return { kind: 'response', message: { v: PROTOCOL_VERSION, id, source, target, result: fields.result ?? null, error: body } };
}
