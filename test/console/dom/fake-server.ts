// A fake Strata for the console's DOM tests: a `fetch` stub answering by method and path, recording every call, able to hold an answer until the test releases it.
import { vi } from 'vitest';
import type { ConsoleSession } from '../../../src/console/api-request.js';

/** The session every DOM test signs in as (expires far after any faked clock). */
export const SESSION: ConsoleSession = { token: 'tok-1', tenantId: 't1', username: 'ana', expiresMs: Date.UTC(2100, 0, 1) };

/** Where the monitoring API of SESSION's tenant lives. */
export const MON = '/monitoring/v1.0/t1';

/** One call the console made. */
export interface FakeCall {
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly token: string | undefined;
  /** Set when the caller's signal aborted the call before it was answered. */
  aborted: boolean;
  /** True once answered or aborted. */
  settled: boolean;
}

/** An answer: a status and a JSON body (or plain text). */
export interface FakeReply {
  readonly status: number;
  readonly body?: unknown;
  readonly text?: string;
}

/** Answers a call; a promise holds the answer until it resolves. */
export type FakeHandler = (call: FakeCall) => FakeReply | Promise<FakeReply>;

/** A promise the test resolves when it chooses. */
export interface Gate<T> {
  readonly promise: Promise<T>;
  release(value: T): void;
}

export function gate<T>(): Gate<T> {
  let release!: (value: T) => void;
  const promise = new Promise<T>((resolve) => {
    release = resolve;
  });
  return { promise, release };
}

export function ok(body: unknown): FakeReply {
  return { status: 200, body };
}

/** The monitoring API's error body. */
export function apiError(status: number, message: string): FakeReply {
  return { status, body: { type: 'error', code: status, message, details: { code: `HTTP_${status}` } } };
}

/** A list page with no further pages. */
export function page<T>(values: readonly T[]): { values: readonly T[]; metadata: Record<string, unknown> } {
  return { values, metadata: { count: values.length, limit: 1000, marker: null, next_marker: null, next_href: null } };
}

/** The fake server: the installed fetch stub and what it saw. */
export interface FakeServer {
  readonly calls: FakeCall[];
  /** Calls whose path ends with `suffix`. */
  callsTo(suffix: string): FakeCall[];
  /** Calls to `suffix` neither answered nor aborted yet. */
  pending(suffix: string): FakeCall[];
}

function abortError(): DOMException {
  return new DOMException('The operation was aborted.', 'AbortError');
}

/** Installs a fetch stub that answers every call with `handler` (undo with vi.unstubAllGlobals). */
export function fakeServer(handler: FakeHandler): FakeServer {
  const calls: FakeCall[] = [];
  const stub = (input: string, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(input, 'http://console.test');
    const headers = (init.headers ?? {}) as Record<string, string>;
    const call: FakeCall = { method: init.method ?? 'GET', path: url.pathname, query: url.searchParams, token: headers['x-auth-token'], aborted: false, settled: false };
    calls.push(call);
    const signal = init.signal ?? undefined;
    return new Promise<Response>((resolve, reject) => {
      const onAbort = (): void => {
        if (call.settled) return;
        call.aborted = true;
        call.settled = true;
        reject(abortError());
      };
      if (signal?.aborted === true) return onAbort();
      signal?.addEventListener('abort', onAbort);
      Promise.resolve(handler(call)).then((reply) => {
        if (call.settled) return;
        call.settled = true;
        signal?.removeEventListener('abort', onAbort);
        const text = reply.text ?? (reply.body === undefined ? '' : JSON.stringify(reply.body));
        // What apiRequest reads of a Response: status, ok and the text.
        resolve({ status: reply.status, ok: reply.status >= 200 && reply.status < 300, text: () => Promise.resolve(text) } as unknown as Response);
      }, reject);
    });
  };
  vi.stubGlobal('fetch', vi.fn(stub));
  return {
    calls,
    callsTo: (suffix) => calls.filter((call) => call.path.endsWith(suffix)),
    pending: (suffix) => calls.filter((call) => call.path.endsWith(suffix) && !call.settled),
  };
}

/** Lets every promise chain that waits on no timer run to its end (setImmediate is left real by useFakeClock). */
export async function flush(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** Fakes the timers the pages use and the clock, at a fixed instant; microtasks and setImmediate stay real so flush() works. */
export function useFakeClock(nowMs: number = Date.UTC(2024, 5, 1, 12, 0, 0)): void {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval', 'Date'], now: nowMs });
}

/** Advances the faked clock by `ms` (running the timers due), then flushes. */
export async function advance(ms: number): Promise<void> {
  await vi.advanceTimersByTimeAsync(ms);
  await flush();
}
