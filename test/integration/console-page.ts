// Owns reading and driving a console page in the browser tests: texts and attributes waited for, the page's request log, signing in, and named steps whose failures say which step failed.
import type { Page } from 'playwright-core';
import { until } from './console-seed.js';
import type { WatchedPage } from './console-chromium.js';

/** How long a page may take to show what a test waits for, unless the test says otherwise. */
export const PAGE_WAIT_MS_DEFAULT = 30_000;

/** The text of the first element matching `selector` ('' when there is none), trimmed. */
export async function textOf(page: Page, selector: string): Promise<string> {
  const locator = page.locator(selector).first();
  return (await locator.count()) === 0 ? '' : ((await locator.textContent()) ?? '').trim();
}

/** Waits until the first element matching `selector` has a text `accept` takes and returns it; the error names the text last seen. */
export async function waitText(page: Page, selector: string, accept: (text: string) => boolean, timeoutMs = PAGE_WAIT_MS_DEFAULT): Promise<string> {
  let last = '';
  try {
    return await until(`${selector} to show the expected text`, async () => ((last = await textOf(page, selector)), accept(last) ? last : undefined), timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it shows "${last}"`);
  }
}

/** Waits until the first element matching `selector` has attribute `name` equal to `value`; the error names the value last seen. */
export async function waitAttribute(page: Page, selector: string, name: string, value: string, timeoutMs = PAGE_WAIT_MS_DEFAULT): Promise<void> {
  let last: string | null = null;
  try {
    await until(`${selector}[${name}=${value}]`, async () => ((last = await page.locator(selector).first().getAttribute(name)), last === value ? true : undefined), timeoutMs);
  } catch (error) {
    throw new Error(`${(error as Error).message}; it has ${name}="${last}"`);
  }
}

/** Every request a page made, in order, as URLs. */
export class RequestLog {
  private readonly urls: URL[] = [];

  constructor(page: Page) {
    page.on('request', (request) => this.urls.push(new URL(request.url())));
  }

  /** A position in the log: waitFor looks at requests after it. */
  mark(): number {
    return this.urls.length;
  }

  /** The last request to a path matching `path`; throws when there was none. */
  last(path: RegExp): URL {
    const found = this.urls.filter((url) => path.test(url.pathname)).at(-1);
    if (found === undefined) throw new Error(`the page made no request matching ${path}`);
    return found;
  }

  /** Waits for a request to a path matching `path` after `mark`. */
  async waitFor(path: RegExp, mark: number, timeoutMs = PAGE_WAIT_MS_DEFAULT): Promise<URL> {
    return until(`a request matching ${path}`, () => this.urls.slice(mark).find((url) => path.test(url.pathname)), timeoutMs);
  }
}

/** from, to and points or resolution of a plot request, as a query string for the same view. */
export function rangeParams(request: URL): URLSearchParams {
  const params = new URLSearchParams();
  for (const name of ['from', 'to', 'points', 'resolution']) {
    const value = request.searchParams.get(name);
    if (value !== null) params.set(name, value);
  }
  return params;
}

/**
 * Runs one step of a test whose steps share a page and depend on the ones before: a failure
 * (an assertion, a timeout, or a problem the page recorded meanwhile) is rethrown with the step's
 * name in front of its message, so the report says where the sequence broke.
 */
export async function step(watched: WatchedPage, name: string, body: () => Promise<void>): Promise<void> {
  try {
    await body();
    const problems = watched.report();
    if (problems !== '') throw new Error(`problems in the page:\n${problems}`);
  } catch (error) {
    if (error instanceof Error) {
      error.message = `step "${name}" failed: ${error.message}`;
      throw error;
    }
    throw new Error(`step "${name}" failed: ${String(error)}`);
  }
}

/** Signs in through the form at `${url}/` and waits for the metrics page (#/metrics) with the user shown. */
export async function signIn(page: Page, url: string, username: string, apiKey: string, timeoutMs = PAGE_WAIT_MS_DEFAULT): Promise<void> {
  await page.goto(`${url}/`);
  await page.fill('[data-testid=signin-form] input[name=username]', username);
  await page.fill('[data-testid=signin-form] input[name=apiKey]', apiKey);
  await page.click('[data-testid=signin-form] button[type=submit]');
  await until('#/metrics after signing in', () => (new URL(page.url()).hash.startsWith('#/metrics') ? true : undefined), timeoutMs);
  await waitText(page, '[data-testid=whoami]', (text) => text.includes(username), timeoutMs);
}
