// Owns Debian's chromium for the console's browser tests: launching it with playwright-core, pages that record every page error, console error and CSP violation, and stopping it by its PID.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserServer, type ConsoleMessage, type Page } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser; env STRATA_CHROMIUM overrides it. */
export const CHROMIUM_PATH_DEFAULT = '/usr/bin/chromium';
/** The viewport every console page is tested at (the contract's larger layout). */
export const VIEWPORT = { width: 1280, height: 800 } as const;
/** How long chromium may take to exit after close() before it gets SIGKILL. */
const CHROMIUM_STOP_GRACE_MS = 10_000;

/** The chromium binary to drive; throws (the test fails, never skips) when it is not installed. */
export function chromiumPath(): string {
  const path = process.env.STRATA_CHROMIUM ?? CHROMIUM_PATH_DEFAULT;
  if (!existsSync(path)) {
    throw new Error(
      `chromium not found at ${path}: the console's browser tests need Debian's chromium ` +
        `(apt-get install -y --no-install-recommends chromium, as .ci/run does), or STRATA_CHROMIUM naming another chromium binary`,
    );
  }
  return path;
}

/** What went wrong inside a page: each list must stay empty. */
export interface PageProblems {
  readonly pageErrors: string[];
  readonly consoleErrors: string[];
  readonly cspViolations: string[];
}

/** A page whose errors are recorded from its first script on. */
export interface WatchedPage {
  readonly page: Page;
  readonly context: BrowserContext;
  readonly problems: PageProblems;
  /**
   * Declares an HTTP error the test provokes on purpose (a wrong API key's 401): chromium logs
   * "Failed to load resource" for it as a console error; only that log line (a resource whose
   * URL path matches `path` answering `status`) is then accepted.
   */
  expectFailedResource(path: RegExp, status: number): void;
  /** Every problem recorded since the last call, one per line (empty when none); the record starts afresh. */
  report(): string;
}

/** A running chromium reached over playwright's protocol. */
export interface ConsoleBrowser {
  readonly browser: Browser;
  readonly pid: number;
  /** A fresh context (no storage shared with other pages) and page at VIEWPORT, watched. */
  newPage(): Promise<WatchedPage>;
  /** Closes the browser, then SIGKILLs its PID if it has not exited within the grace. */
  close(): Promise<void>;
}

/** Name of the binding the init script reports CSP violations through. */
const CSP_BINDING = '__strataCspViolation';
/** Name of the binding the init script reports uncaught errors and unhandled rejections through. */
const UNCAUGHT_BINDING = '__strataUncaught';

/**
 * Installed before any page script, so its listeners run before the console's own (which call
 * preventDefault to show the error as a message, and so hide it from chromium's error reports):
 * forwards every CSP violation, uncaught error and unhandled rejection to the test. An aborted
 * fetch's AbortError is no failure (the console aborts superseded requests on purpose).
 */
const PAGE_LISTENERS = `document.addEventListener('securitypolicyviolation', (event) => {
  window.${CSP_BINDING}(event.violatedDirective + ' blocked ' + (event.blockedURI || 'inline') + ' at ' + event.sourceFile + ':' + event.lineNumber);
});
window.addEventListener('error', (event) => {
  window.${UNCAUGHT_BINDING}('uncaught error: ' + event.message + ' at ' + event.filename + ':' + event.lineno);
});
window.addEventListener('unhandledrejection', (event) => {
  const reason = event.reason;
  if (reason instanceof DOMException && reason.name === 'AbortError') return;
  window.${UNCAUGHT_BINDING}('unhandled rejection: ' + (reason instanceof Error ? reason.name + ': ' + reason.message : String(reason)));
});`;

/** Chromium's own log line for a response with an error status. */
const FAILED_RESOURCE = /^Failed to load resource: the server responded with a status of (\d+)/;

async function watch(context: BrowserContext): Promise<WatchedPage> {
  const page = await context.newPage();
  const problems: PageProblems = { pageErrors: [], consoleErrors: [], cspViolations: [] };
  const expected: { path: RegExp; status: number }[] = [];
  await page.exposeFunction(CSP_BINDING, (text: string) => problems.cspViolations.push(text));
  await page.exposeFunction(UNCAUGHT_BINDING, (text: string) => problems.pageErrors.push(text));
  await page.addInitScript(PAGE_LISTENERS);
  page.on('pageerror', (error) => problems.pageErrors.push(`${error.name}: ${error.message}`));
  page.on('console', (message: ConsoleMessage) => {
    const text = message.text();
    // Chromium reports a CSP refusal as a console error too; the event above records it.
    if (/Content Security Policy/i.test(text)) problems.cspViolations.push(text);
    if (message.type() !== 'error') return;
    const url = message.location().url;
    const failed = FAILED_RESOURCE.exec(text);
    const status = Number(failed?.[1]);
    const path = URL.canParse(url) ? new URL(url).pathname : url;
    if (failed !== null && expected.some((e) => e.status === status && e.path.test(path))) return;
    problems.consoleErrors.push(`${text} (${url})`);
  });
  return {
    page,
    context,
    problems,
    expectFailedResource: (path, status) => void expected.push({ path, status }),
    report: () => {
      const lines = [
        ...problems.pageErrors.splice(0).map((p) => `page error: ${p}`),
        ...problems.consoleErrors.splice(0).map((p) => `console error: ${p}`),
        ...problems.cspViolations.splice(0).map((p) => `CSP violation: ${p}`),
      ];
      return lines.join('\n');
    },
  };
}

function exitOf(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return false;
  } catch {
    return true;
  }
}

async function stopServer(server: BrowserServer, pid: number): Promise<void> {
  const closed = server.close().then(() => 'closed' as const, () => 'failed' as const);
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), CHROMIUM_STOP_GRACE_MS)));
  const outcome = await Promise.race([closed, late]);
  clearTimeout(timer);
  if (outcome !== 'closed' && !exitOf(pid)) process.kill(pid, 'SIGKILL');
}

/** Launches chromium headless with `--no-sandbox` (tests run as root) and connects to it. */
export async function launchChromium(): Promise<ConsoleBrowser> {
  const executablePath = chromiumPath();
  const server = await chromium.launchServer({ executablePath, args: ['--no-sandbox'], headless: true });
  const pid = server.process().pid;
  if (pid === undefined) {
    await server.close();
    throw new Error('chromium started without a PID');
  }
  let browser: Browser;
  try {
    browser = await chromium.connect(server.wsEndpoint());
  } catch (error) {
    await stopServer(server, pid);
    throw error;
  }
  return {
    browser,
    pid,
    newPage: async () => watch(await browser.newContext({ viewport: VIEWPORT })),
    close: async () => {
      await browser.close().catch(() => undefined);
      await stopServer(server, pid);
    },
  };
}
