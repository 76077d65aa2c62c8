// Owns the console's one way to call Strata's public APIs: the token header, JSON in and out, and every failure as a ConsoleApiError with the API's own message.

/** What the console knows after sign-in; kept in sessionStorage, so it lives as long as the tab. */
export interface ConsoleSession {
  readonly token: string;
  readonly tenantId: string;
  readonly username: string;
  /** When the token expires (ms since the epoch). */
  readonly expiresMs: number;
}

/** A failed call: the HTTP status (0 when the server could not be reached) and the message to show. */
export class ConsoleApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    /** The API's own error code when its body names one (e.g. SEARCH_RESULTS_TOO_MANY), else undefined. */
    readonly code: string | undefined,
  ) {
    super(message);
    this.name = 'ConsoleApiError';
  }
}

/** Query parameters: repeated for arrays, skipped when undefined. */
export type QueryParams = Readonly<Record<string, string | number | boolean | readonly (string | number)[] | undefined>>;

/** How long a call may take before it is given up (ms), unless the call names its own timeoutMs. */
export const REQUEST_TIMEOUT_MS = 30_000;

/** Most characters of a plain-text error body shown as the message. */
export const ERROR_TEXT_MAX_CHARS = 500;

/** One call's options. */
export interface RequestOptions {
  readonly method?: 'GET' | 'POST';
  readonly query?: QueryParams;
  readonly body?: unknown;
  /** The session whose token is sent (absent for sign-in). */
  readonly session?: ConsoleSession;
  /** Aborting it rejects the call with the AbortError (see isAbortError). */
  readonly signal?: AbortSignal;
  /** Gives up after this many ms with a ConsoleApiError of status 0; REQUEST_TIMEOUT_MS when absent. */
  readonly timeoutMs?: number;
}

/** True for the rejection of a call its caller aborted (a DOMException named AbortError). */
export function isAbortError(error: unknown): boolean {
  return error instanceof DOMException && error.name === 'AbortError';
}

/** The text the message area shows for a failure: the API's own message, or what went wrong otherwise. */
export function messageOf(error: unknown): string {
  if (error instanceof ConsoleApiError) return error.message;
  return error instanceof Error ? `Unexpected error: ${error.message}` : 'Unexpected error.';
}

/** The message of a call that timed out after `timeoutMs`. */
export function timeoutMessage(timeoutMs: number): string {
  return `The server did not answer within ${Math.round(timeoutMs / 1000)} s.`;
}

type UnauthorizedHandler = () => void;
const unauthorizedHandlers = new Set<UnauthorizedHandler>();

/**
 * Calls `handler` whenever a call that carried a token answers 401, whichever module made it (the
 * metrics and monitoring clients alike): the token was revoked or expired. Returns the undo.
 */
export function onUnauthorized(handler: UnauthorizedHandler): () => void {
  // A wrapper per registration, so registering the same function twice needs two undos.
  const entry: UnauthorizedHandler = () => handler();
  unauthorizedHandlers.add(entry);
  return () => {
    unauthorizedHandlers.delete(entry);
  };
}

/** A URL path with its query string. */
export function withQuery(path: string, query: QueryParams | undefined): string {
  if (query === undefined) return path;
  const search = new URLSearchParams();
  for (const [key, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (Array.isArray(value)) for (const item of value) search.append(key, String(item));
    else search.append(key, String(value));
  }
  const text = search.toString();
  return text === '' ? path : `${path}?${text}`;
}

/**
 * The message and code of an error body, whichever API shaped it: the metrics shape
 * ({message, details.code}), the monitoring shape ({message, details, type}), the identity shape
 * ({<fault>: {message, code}}: the code when it is text, else the fault's name, e.g. 'unauthorized'),
 * or plain text (its first ERROR_TEXT_MAX_CHARS characters).
 */
export function errorOf(status: number, body: unknown, text: string): ConsoleApiError {
  if (typeof body === 'object' && body !== null) {
    const record = body as Record<string, unknown>;
    const details = record.details as Record<string, unknown> | undefined;
    const code = typeof details?.code === 'string' ? details.code : typeof record.code === 'string' ? record.code : undefined;
    if (typeof record.message === 'string') return new ConsoleApiError(status, record.message, code);
    for (const [name, value] of Object.entries(record)) {
      const fault = value as Record<string, unknown> | null;
      if (typeof fault !== 'object' || fault === null || typeof fault.message !== 'string') continue;
      // The identity API's fault code is the HTTP status again; its stable name is the fault's key.
      return new ConsoleApiError(status, fault.message, typeof fault.code === 'string' ? fault.code : name);
    }
  }
  const trimmed = text.trim();
  return new ConsoleApiError(status, trimmed === '' ? `HTTP ${status}` : trimmed.slice(0, ERROR_TEXT_MAX_CHARS), undefined);
}

/** The signal a call runs under: the caller's, if any, combined with its own timeout. */
function callSignal(options: RequestOptions): { readonly signal: AbortSignal; readonly timeout: AbortSignal; readonly timeoutMs: number } {
  const timeoutMs = options.timeoutMs ?? REQUEST_TIMEOUT_MS;
  const timeout = AbortSignal.timeout(timeoutMs);
  return { signal: options.signal === undefined ? timeout : AbortSignal.any([options.signal, timeout]), timeout, timeoutMs };
}

async function send(path: string, options: RequestOptions, signal: AbortSignal): Promise<{ readonly response: Response; readonly text: string }> {
  const headers: Record<string, string> = { accept: 'application/json' };
  if (options.session !== undefined) headers['x-auth-token'] = options.session.token;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(withQuery(path, options.query), {
    method: options.method ?? 'GET',
    headers,
    ...(options.body !== undefined ? { body: JSON.stringify(options.body) } : {}),
    signal,
  });
  return { response, text: await response.text() };
}

/**
 * Calls a public API on the console's own origin; resolves with the parsed JSON (undefined for 204)
 * or rejects with a ConsoleApiError (status 0 when the server could not be reached or did not answer
 * within the timeout), or with the AbortError when the caller's signal aborted it. A 401 to a call
 * that carried a token is told to every onUnauthorized handler before the call rejects.
 */
export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<T> {
  const { signal, timeout, timeoutMs } = callSignal(options);
  let sent: { readonly response: Response; readonly text: string };
  try {
    sent = await send(path, options, signal);
  } catch (error) {
    if (options.signal?.aborted === true) throw isAbortError(error) ? error : new DOMException('The call was aborted.', 'AbortError');
    if (timeout.aborted) throw new ConsoleApiError(0, timeoutMessage(timeoutMs), undefined);
    throw new ConsoleApiError(0, 'The server could not be reached.', undefined);
  }
  const { response, text } = sent;
  if (response.status === 401 && options.session !== undefined) for (const handler of [...unauthorizedHandlers]) handler();
  let body: unknown;
  try {
    body = text === '' ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!response.ok) throw errorOf(response.status, body, text);
  return body as T;
}
