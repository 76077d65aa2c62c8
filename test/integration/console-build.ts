// Owns building what the console's browser tests serve: the server (dist/src, when missing) and, before every browser file, the console bundle (dist/console) afresh, one build at a time.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ensureBuilt, ROOT } from './serve-process.js';

/** The console's build output the server serves (found from the package root). */
export const CONSOLE_INDEX = join(ROOT, 'dist', 'console', 'index.html');
/** The console's build script (esbuild; about 150 ms). */
const BUILD_SCRIPT = join(ROOT, 'scripts', 'build-console.mjs');
/**
 * A directory held while one test file builds: browser files run in parallel workers, and two
 * builds at once into dist/console could remove each other's temporary files.
 */
const BUILD_LOCK = join(ROOT, 'dist', '.console-build.lock');
/** A lock older than this belongs to a process that died while building: it is taken over. */
const BUILD_LOCK_STALE_MS = 120_000;
/** Pause between two attempts at the lock. */
const BUILD_LOCK_POLL_MS = 100;

async function withBuildLock(body: () => void): Promise<void> {
  mkdirSync(join(ROOT, 'dist'), { recursive: true });
  for (;;) {
    try {
      mkdirSync(BUILD_LOCK);
      break;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      const age = Date.now() - (statSync(BUILD_LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now());
      if (age > BUILD_LOCK_STALE_MS) rmSync(BUILD_LOCK, { recursive: true, force: true });
      else await new Promise((resolve) => setTimeout(resolve, BUILD_LOCK_POLL_MS));
    }
  }
  try {
    body();
  } finally {
    rmSync(BUILD_LOCK, { recursive: true, force: true });
  }
}

/**
 * Builds the server when its CLI is missing (as every integration test does) and the console
 * always, with `node scripts/build-console.mjs` into dist/console as `npm run build` does: a plain
 * `npx vitest run` after editing src/console tests the sources, never a stale bundle.
 */
export async function buildConsole(): Promise<void> {
  ensureBuilt();
  await withBuildLock(() => {
    try {
      execFileSync(process.execPath, [BUILD_SCRIPT], { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
    } catch (error) {
      const status = (error as { status?: number }).status;
      throw new Error(`node scripts/build-console.mjs failed (exit ${status ?? 'unknown'}; its errors are printed above): the browser tests need a console that builds`);
    }
  });
  if (!existsSync(CONSOLE_INDEX)) throw new Error(`the console build did not write ${CONSOLE_INDEX}`);
}
