// Owns the life of one console browser test file: the console built afresh, a data dir with a user, `strata serve` on it, a token, chromium with one watched page; and stopping all of it by PID.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { buildConsole } from './console-build.js';
import { chromiumPath, launchChromium, type ConsoleBrowser, type WatchedPage } from './console-chromium.js';
import { RequestLog } from './console-page.js';
import { createUser } from './console-seed.js';
import { startServe, tokenFor, type ServeProcess } from './serve-process.js';

/** Who signs in, and where the data dir is made. */
export interface ConsoleFixtureOptions {
  /** Prefix of the temp data dir under os.tmpdir(). */
  readonly dirPrefix: string;
  readonly tenant: string;
  readonly username: string;
  readonly apiKey: string;
}

/** A served console and a browser page on it; the fields are set by start(). */
export class ConsoleFixture {
  dir: string | undefined;
  serve: ServeProcess | undefined;
  browser: ConsoleBrowser | undefined;
  url = '';
  /** The user's token, for the API calls a test compares the page against. */
  token = '';
  watched!: WatchedPage;
  page!: Page;
  requests!: RequestLog;

  constructor(readonly options: ConsoleFixtureOptions) {}

  /**
   * Checks chromium first (missing, the test fails before anything is seeded), builds the console,
   * starts the server, runs `seed` against it, then launches chromium and opens the page.
   */
  async start(seed: (url: string, token: string) => Promise<void> = async () => undefined): Promise<void> {
    chromiumPath();
    await buildConsole();
    const { dirPrefix, tenant, username, apiKey } = this.options;
    this.dir = mkdtempSync(join(tmpdir(), dirPrefix));
    createUser(this.dir, username, tenant, apiKey);
    this.serve = await startServe(this.dir);
    this.url = this.serve.url;
    this.token = await tokenFor(this.url, username, apiKey);
    await seed(this.url, this.token);
    this.browser = await launchChromium();
    this.watched = await this.browser.newPage();
    this.page = this.watched.page;
    this.requests = new RequestLog(this.page);
  }

  /** Closes chromium, stops the server by its PID and removes the data dir; safe after a partial start. */
  async stop(): Promise<void> {
    await this.browser?.close();
    const serve = this.serve;
    if (serve !== undefined && serve.child.exitCode === null && serve.child.signalCode === null) {
      serve.child.kill('SIGTERM');
      await serve.exited;
    }
    if (this.dir !== undefined) rmSync(this.dir, { recursive: true, force: true });
  }
}
