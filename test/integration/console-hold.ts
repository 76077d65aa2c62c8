// Owns holding back one answer the page waits for (playwright's page.route): the first request that matches is caught and sent on only when the test releases it, to provoke answers arriving out of order.
import type { Page, Request, Route } from 'playwright-core';
import { until } from './console-seed.js';

/** How the held request ended in the browser. */
export type HeldEnd = { readonly kind: 'finished'; readonly status: number | undefined } | { readonly kind: 'failed'; readonly error: string };

/** The first request matching, held until release(). */
export interface HeldRequest {
  /** The held request once the page made it (the route caught it), else undefined. */
  caught(): Request | undefined;
  /** Sends the held request on to the server (route.continue); its answer then reaches the page unless the page gave up on it. */
  release(): void;
  /** Resolves when the held request has ended in the browser: answered (its body read by the network stack) or failed (aborted by the page). */
  ended(timeoutMs?: number): Promise<HeldEnd>;
  /** Why route.continue failed, if it did (the page aborted the request meanwhile), else undefined. */
  continueError(): string | undefined;
  /** Removes the route; later requests go straight to the server. */
  remove(): Promise<void>;
}

/** Holds the first request of `page` whose method is `method` and whose URL path matches `path`; every other request passes untouched. */
export async function holdFirst(page: Page, method: string, path: RegExp): Promise<HeldRequest> {
  let onRelease!: () => void;
  const released = new Promise<void>((resolve) => (onRelease = resolve));
  let held: Request | undefined;
  let end: HeldEnd | undefined;
  let continueFailure: string | undefined;
  const matches = (url: URL): boolean => path.test(url.pathname);
  const handler = async (route: Route): Promise<void> => {
    const request = route.request();
    if (held !== undefined || request.method() !== method) {
      await route.fallback();
      return;
    }
    held = request;
    await released;
    await route.continue().catch((error: Error) => void (continueFailure = error.message));
  };
  page.on('requestfinished', (request) => {
    if (request === held) void request.response().then((response) => (end ??= { kind: 'finished', status: response?.status() }));
  });
  page.on('requestfailed', (request) => {
    if (request === held) end ??= { kind: 'failed', error: request.failure()?.errorText ?? 'unknown' };
  });
  await page.route(matches, handler);
  return {
    caught: () => held,
    release: () => onRelease(),
    ended: (timeoutMs = 30_000) => until('the held request to end in the browser', () => end, timeoutMs),
    continueError: () => continueFailure,
    remove: () => page.unroute(matches, handler),
  };
}
