// Tests apiRequest (timeout, abort, the unauthorized hook) over a stubbed fetch, and errorOf over every API's error shape.
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  apiRequest,
  ConsoleApiError,
  ERROR_TEXT_MAX_CHARS,
  errorOf,
  isAbortError,
  messageOf,
  onUnauthorized,
  REQUEST_TIMEOUT_MS,
  timeoutMessage,
  withQuery,
  type ConsoleSession,
} from '../../src/console/api-request.js';

describe('errorOf', () => {
  it('reads the metrics shape: message, and the stable code from details (not the numeric HTTP code)', () => {
    const body = { type: 'badRequest', code: 400, message: 'More than 1000 metrics match; narrow the glob.', details: { code: 'SEARCH_RESULTS_TOO_MANY', limit: 1000 }, txnId: 't' };
    const error = errorOf(400, body, JSON.stringify(body));
    expect(error).toBeInstanceOf(ConsoleApiError);
    expect(error).toMatchObject({ status: 400, message: body.message, code: 'SEARCH_RESULTS_TOO_MANY' });
  });

  it('reads the monitoring shape', () => {
    const body = { type: 'notFoundError', code: 404, message: 'Object "Entity" with key "en1" does not exist', details: { code: 'MONITORING_NOT_FOUND' }, txnId: 'x' };
    expect(errorOf(404, body, '')).toMatchObject({ status: 404, message: body.message, code: 'MONITORING_NOT_FOUND' });
  });

  it('reads the identity fault shape', () => {
    const body = { unauthorized: { code: 401, message: 'Username or api key is invalid.' } };
    expect(errorOf(401, body, '')).toMatchObject({ status: 401, message: 'Username or api key is invalid.', code: 'unauthorized' });
    expect(errorOf(400, { badRequest: { code: 'BAD_NAME', message: 'm' } }, '')).toMatchObject({ code: 'BAD_NAME' });
  });

  it('falls back to the text, trimmed and bounded, or the status', () => {
    expect(errorOf(502, undefined, '  Bad gateway \n')).toMatchObject({ status: 502, message: 'Bad gateway', code: undefined });
    expect(errorOf(500, undefined, '')).toMatchObject({ message: 'HTTP 500' });
    expect(errorOf(500, undefined, 'x'.repeat(2000)).message).toHaveLength(ERROR_TEXT_MAX_CHARS);
  });

  it('always yields a non-empty message and keeps the status, whatever the body', () => {
    fc.assert(
      fc.property(fc.integer({ min: 400, max: 599 }), fc.jsonValue(), fc.string(), (status, body, text) => {
        const error = errorOf(status, body, text);
        expect(error.status).toBe(status);
        expect(error.message.length).toBeGreaterThan(0);
        expect(error.code === undefined || typeof error.code === 'string').toBe(true);
      }),
    );
  });

  it('takes any message a metrics-shaped body carries', () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ minLength: 1 }), (message, code) => {
        expect(errorOf(400, { message, details: { code } }, '')).toMatchObject({ message, code });
      }),
    );
  });
});

describe('withQuery', () => {
  it('repeats arrays and skips undefined', () => {
    expect(withQuery('/p', { a: 1, b: undefined, m: ['x', 'y z'] })).toBe('/p?a=1&m=x&m=y+z');
    expect(withQuery('/p', {})).toBe('/p');
  });
});

const SESSION: ConsoleSession = { token: 'tok', tenantId: 't1', username: 'u', expiresMs: 4_000_000_000_000 };

/** A fetch that never answers until its signal aborts (then rejects with the signal's reason, as fetch does). */
function hangingFetch(): typeof fetch {
  return (_input, init) =>
    new Promise<Response>((_resolve, reject) => {
      const signal = init?.signal;
      signal?.addEventListener('abort', () => reject(signal.reason), { once: true });
    });
}

describe('apiRequest', () => {
  afterEach(() => {
    vi.unstubAllGlobals();
  });

  it('sends the token and JSON, and resolves with the parsed body', async () => {
    const seen: { url: string; init: RequestInit | undefined }[] = [];
    vi.stubGlobal('fetch', async (input: string, init?: RequestInit) => {
      seen.push({ url: input, init });
      return new Response(JSON.stringify({ ok: 1 }), { status: 200 });
    });
    await expect(apiRequest('/p', { method: 'POST', session: SESSION, body: ['a'], query: { q: 'x' } })).resolves.toEqual({ ok: 1 });
    expect(seen[0]?.url).toBe('/p?q=x');
    expect(seen[0]?.init?.headers).toMatchObject({ 'x-auth-token': 'tok', 'content-type': 'application/json' });
    expect(seen[0]?.init?.body).toBe('["a"]');
  });

  it('gives up after the timeout with a status-0 ConsoleApiError saying so', async () => {
    vi.stubGlobal('fetch', hangingFetch());
    const error: unknown = await apiRequest('/p', { timeoutMs: 20 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ConsoleApiError);
    expect(error).toMatchObject({ status: 0, message: timeoutMessage(20) });
    expect(isAbortError(error)).toBe(false);
  });

  it('defaults to a 30 s timeout with the message the contract names', () => {
    expect(REQUEST_TIMEOUT_MS).toBe(30_000);
    expect(timeoutMessage(REQUEST_TIMEOUT_MS)).toBe('The server did not answer within 30 s.');
  });

  it('rejects with the AbortError when the caller aborts, even with a timeout pending', async () => {
    vi.stubGlobal('fetch', hangingFetch());
    const controller = new AbortController();
    const pending = apiRequest('/p', { signal: controller.signal, timeoutMs: 60_000 });
    controller.abort();
    const error: unknown = await pending.catch((caught: unknown) => caught);
    expect(isAbortError(error)).toBe(true);
  });

  it('turns a network failure into "could not be reached"', async () => {
    vi.stubGlobal('fetch', async () => {
      throw new TypeError('fetch failed');
    });
    await expect(apiRequest('/p')).rejects.toMatchObject({ status: 0, message: 'The server could not be reached.' });
  });

  it('tells every onUnauthorized handler of a 401 to a call with a token, until undone', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ message: 'Token expired.' }), { status: 401 }));
    const heard: string[] = [];
    const undo = onUnauthorized(() => heard.push('a'));
    await expect(apiRequest('/p', { session: SESSION })).rejects.toMatchObject({ status: 401, message: 'Token expired.' });
    expect(heard).toEqual(['a']);
    // Sign-in carries no token: its 401 is a wrong key, not an expired session.
    await expect(apiRequest('/v2.0/tokens', { method: 'POST', body: {} })).rejects.toMatchObject({ status: 401 });
    expect(heard).toEqual(['a']);
    undo();
    await expect(apiRequest('/p', { session: SESSION })).rejects.toMatchObject({ status: 401 });
    expect(heard).toEqual(['a']);
  });
});

describe('isAbortError and messageOf', () => {
  it('recognise only an AbortError DOMException', () => {
    expect(isAbortError(new DOMException('x', 'AbortError'))).toBe(true);
    expect(isAbortError(new DOMException('x', 'TimeoutError'))).toBe(false);
    expect(isAbortError(new Error('AbortError'))).toBe(false);
  });

  it('show the API message, or say the error was unexpected', () => {
    expect(messageOf(new ConsoleApiError(404, 'No such metric.', undefined))).toBe('No such metric.');
    expect(messageOf(new Error('boom'))).toBe('Unexpected error: boom');
    expect(messageOf('text')).toBe('Unexpected error.');
  });
});
