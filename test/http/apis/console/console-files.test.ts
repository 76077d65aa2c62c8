// Tests reading a console build into memory (what is served and what never is, the limits) and the If-None-Match rule.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { StrataError } from '../../../../src/core/errors.js';
import { ifNoneMatchHolds } from '../../../../src/http/apis/console/console-api.js';
import { loadConsoleBuild } from '../../../../src/http/apis/console/console-files.js';
import { CONSOLE_ASSET_FILES_MAX, CONSOLE_BYTES_MAX } from '../../../../src/http/http-limits.js';
import { resolveServerConfig } from '../../../../src/http/server-config.js';
import { INDEX_HTML, makeConsoleFixture, SCRIPT, SCRIPT_MAP, STYLE, type ConsoleFixture } from './console-fixture.js';

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function fixture(): ConsoleFixture {
  const made = makeConsoleFixture();
  cleanups.push(made.remove);
  return made;
}

function emptyDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-console-files-'));
  cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return error instanceof StrataError ? error.code : 'not a StrataError';
  }
  return undefined;
}

describe('loadConsoleBuild', () => {
  it('reads index.html and the assets that qualify, skipping dot files, other types, links and subfolders', () => {
    const build = loadConsoleBuild(fixture().dir);
    expect(build?.index.body.toString()).toBe(INDEX_HTML);
    expect(build?.index.type).toBe('text/html; charset=utf-8');
    expect([...(build?.assets.keys() ?? [])].sort()).toEqual([SCRIPT, SCRIPT_MAP, STYLE].sort());
  });

  it('is undefined (not built) when the directory or its index.html is missing, or index.html is not a file', () => {
    const dir = emptyDir();
    expect(loadConsoleBuild(join(dir, 'nothing'))).toBeUndefined();
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'assets', SCRIPT), 'x');
    expect(loadConsoleBuild(dir)).toBeUndefined();
    mkdirSync(join(dir, 'index.html'));
    expect(loadConsoleBuild(dir)).toBeUndefined();
  });

  it('serves a page without an assets folder', () => {
    const dir = emptyDir();
    writeFileSync(join(dir, 'index.html'), 'page');
    expect(loadConsoleBuild(dir)?.assets.size).toBe(0);
  });

  it('refuses a build over CONSOLE_ASSET_FILES_MAX files or CONSOLE_BYTES_MAX bytes with CONFIG_INVALID', () => {
    const many = emptyDir();
    writeFileSync(join(many, 'index.html'), 'page');
    mkdirSync(join(many, 'assets'));
    for (let i = 0; i <= CONSOLE_ASSET_FILES_MAX; i++) writeFileSync(join(many, 'assets', `a-${i}.js`), '1');
    expect(codeOf(() => loadConsoleBuild(many))).toBe('CONFIG_INVALID');
    const large = emptyDir();
    writeFileSync(join(large, 'index.html'), 'page');
    mkdirSync(join(large, 'assets'));
    writeFileSync(join(large, 'assets', 'big.js'), Buffer.alloc(CONSOLE_BYTES_MAX));
    expect(codeOf(() => loadConsoleBuild(large))).toBe('CONFIG_INVALID');
  });
});

describe('ifNoneMatchHolds', () => {
  const etag = '"abc"';
  it.each([
    ['"abc"', true],
    ['W/"abc"', true],
    ['"x", "abc"', true],
    ['"x",W/"abc"', true],
    ['*', true],
    ['"abcd"', false],
    ['abc', false],
    ['', false],
    ['W/', false],
  ])('If-None-Match: %s → %s', (header, holds) => {
    expect(ifNoneMatchHolds(header, etag)).toBe(holds);
  });

  it('is false without the header and reads repeated headers as one list', () => {
    expect(ifNoneMatchHolds(undefined, etag)).toBe(false);
    expect(ifNoneMatchHolds(['"x"', '"abc"'], etag)).toBe(true);
  });
});

describe('the consoleDir option', () => {
  it('takes an absolute path or nothing; anything else is CONFIG_INVALID', () => {
    expect(resolveServerConfig().consoleDir).toBeUndefined();
    expect(resolveServerConfig({ consoleDir: '/srv/console' }).consoleDir).toBe('/srv/console');
    expect(codeOf(() => resolveServerConfig({ consoleDir: 'dist/console' }))).toBe('CONFIG_INVALID');
    expect(codeOf(() => resolveServerConfig({ consoleDir: 42 as unknown as string }))).toBe('CONFIG_INVALID');
  });
});
