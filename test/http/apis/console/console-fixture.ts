// Owns a console build made by hand in a temp dir for the console tests: a page, hashed assets, and files that must never be served.
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Text only the files outside the build (or refused inside it) hold: no answer may contain it. */
export const SECRET = 'SECRET-must-never-be-served';

/** The hashed names the fixture's page references. */
export const SCRIPT = 'app-AAAA1111.js';
export const STYLE = 'app-BBBB2222.css';
export const SCRIPT_MAP = 'app-AAAA1111.js.map';

/** The page of the fixture build. */
export const INDEX_HTML = `<!doctype html><html><head><meta charset="utf-8"><title>Strata console</title><link rel="stylesheet" href="assets/${STYLE}"><script type="module" src="assets/${SCRIPT}"></script></head><body><div id="app"></div></body></html>\n`;
export const SCRIPT_TEXT = 'console.log("app");\n//# sourceMappingURL=app-AAAA1111.js.map\n';
export const STYLE_TEXT = 'body{margin:0}\n';
export const MAP_TEXT = '{"version":3,"sources":[],"mappings":""}';

/** A temp dir holding `console/` (the build) beside files outside it. */
export interface ConsoleFixture {
  /** The build directory to hand the server as consoleDir. */
  readonly dir: string;
  /** The temp dir around it. */
  readonly root: string;
  remove(): void;
}

/**
 * Writes the fixture: console/index.html and console/assets/ with the page's script, style sheet
 * and map, plus what the server must refuse: a dot file, a file of an unknown type, a symbolic
 * link to a file outside the build, a subfolder, and secrets beside the build.
 */
export function makeConsoleFixture(): ConsoleFixture {
  const root = mkdtempSync(join(tmpdir(), 'strata-console-'));
  const dir = join(root, 'console');
  const assets = join(dir, 'assets');
  mkdirSync(join(assets, 'sub'), { recursive: true });
  writeFileSync(join(dir, 'index.html'), INDEX_HTML);
  writeFileSync(join(assets, SCRIPT), SCRIPT_TEXT);
  writeFileSync(join(assets, STYLE), STYLE_TEXT);
  writeFileSync(join(assets, SCRIPT_MAP), MAP_TEXT);
  writeFileSync(join(assets, '.hidden.js'), SECRET);
  writeFileSync(join(assets, 'notes.txt'), SECRET);
  writeFileSync(join(assets, 'sub', 'x.js'), SECRET);
  writeFileSync(join(root, 'secret.js'), SECRET);
  writeFileSync(join(root, 'package.json'), SECRET);
  symlinkSync(join(root, 'secret.js'), join(assets, 'link-CCCC3333.js'));
  return { dir, root, remove: () => rmSync(root, { recursive: true, force: true }) };
}
