// Tests scripts/build-console.mjs on fixture sources in a temp dir: hashed bundles with maps, the page filled in, stale files removed, and loud failures.
import { execFile } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SCRIPT = join(ROOT, 'scripts', 'build-console.mjs');
const TEMPLATE = readFileSync(join(ROOT, 'src', 'console', 'index.html'), 'utf8');
const HASHED_SCRIPT = /src="assets\/(app-[A-Z0-9]+\.js)"/;
const HASHED_STYLE = /href="assets\/(app-[A-Z0-9]+\.css)"/;

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs the build script as `npm run build` does, with the given arguments. */
function build(args: readonly string[]): Promise<Run> {
  return new Promise((done) => {
    execFile(process.execPath, [SCRIPT, ...args], { cwd: ROOT }, (error, stdout, stderr) => {
      done({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : -1, stdout, stderr });
    });
  });
}

const cleanups: (() => void)[] = [];
afterEach(() => {
  for (const cleanup of cleanups.splice(0)) cleanup();
});

/** A temp dir with console sources (main.ts importing a module, its CSS and uPlot's) and an out dir. */
function sources(main = "import 'uplot/dist/uPlot.min.css';\nimport './app.css';\nimport uPlot from 'uplot';\nimport { label } from './label.js';\ndocument.getElementById('app')!.textContent = label(typeof uPlot);\n") {
  const root = mkdtempSync(join(tmpdir(), 'strata-build-console-'));
  cleanups.push(() => rmSync(root, { recursive: true, force: true }));
  const src = join(root, 'src');
  mkdirSync(src);
  writeFileSync(join(src, 'index.html'), TEMPLATE);
  writeFileSync(join(src, 'main.ts'), main);
  writeFileSync(join(src, 'label.ts'), 'export function label(kind: string): string {\n  return `uPlot is a ${kind}`;\n}\n');
  writeFileSync(join(src, 'app.css'), '.fixture-rule { color: #123456; }\n');
  return { src, out: join(root, 'out') };
}

function built(out: string): { html: string; script: string; style: string; assets: string[] } {
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const script = HASHED_SCRIPT.exec(html)?.[1] ?? '(no script)';
  const style = HASHED_STYLE.exec(html)?.[1] ?? '(no style)';
  return { html, script, style, assets: readdirSync(join(out, 'assets')).sort() };
}

describe('scripts/build-console.mjs', () => {
  it('bundles main.ts and its CSS, uPlot included, into hashed minified files with source maps, and fills in the page', async () => {
    const { src, out } = sources();
    const run = await build(['--src', src, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toMatch(/^console built in \d+ ms: assets\/app-\w+\.js \(\d+ KiB\), assets\/app-\w+\.css \(\d+ KiB\)\n$/);
    const { html, script, style, assets } = built(out);
    expect(assets).toEqual([script, `${script}.map`, style, `${style}.map`].sort());
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>Strata console</title>');
    expect(html).toContain('<div id="app"></div>');
    expect(html).not.toContain('<!--');
    expect(html.match(/<script\b[^>]*>/g)).toEqual([`<script type="module" src="assets/${script}">`]);
    const js = readFileSync(join(out, 'assets', script), 'utf8');
    expect(js).toContain('uPlot is a ');
    expect(js.split('\n').length).toBeLessThan(40);
    expect(js.trimEnd().endsWith(`//# sourceMappingURL=${script}.map`)).toBe(true);
    const css = readFileSync(join(out, 'assets', style), 'utf8');
    expect(css).toContain('.uplot');
    expect(css).toContain('.fixture-rule');
    const map = JSON.parse(readFileSync(join(out, 'assets', `${script}.map`), 'utf8')) as { sources: string[] };
    expect(map.sources.some((source) => source.endsWith('label.ts'))).toBe(true);
  });

  it('names files by content: the same sources give the same names, a change new ones, and stale files go', async () => {
    const { src, out } = sources();
    expect((await build(['--src', src, '--out', out])).code).toBe(0);
    const first = built(out);
    writeFileSync(join(out, 'assets', 'app-OLDHASH1.js'), 'stale');
    expect((await build(['--src', src, '--out', out])).code).toBe(0);
    expect(built(out)).toEqual(first);
    writeFileSync(join(src, 'label.ts'), 'export function label(kind: string): string {\n  return `changed ${kind}`;\n}\n');
    const run = await build(['--src', src, '--out', out]);
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout).toContain('removed 2 stale file(s)');
    const second = built(out);
    expect(second.script).not.toBe(first.script);
    expect(second.style).toBe(first.style);
    expect(second.assets).toEqual([second.script, `${second.script}.map`, second.style, `${second.style}.map`].sort());
  });

  it('fails with exit status 1 and the error location on an esbuild error, leaving the previous build in place', async () => {
    const { src, out } = sources();
    expect((await build(['--src', src, '--out', out])).code).toBe(0);
    const before = built(out);
    writeFileSync(join(src, 'label.ts'), 'export function label(kind: string): string {\n  return kind +;\n}\n');
    const run = await build(['--src', src, '--out', out]);
    expect(run.code).toBe(1);
    expect(run.stderr).toContain('label.ts:2');
    expect(run.stderr).toContain('build-console: esbuild failed with 1 error');
    expect(built(out)).toEqual(before);
  });

  it('fails on an unresolvable import, a network URL in CSS, a page with inline code, and unknown options', async () => {
    const missing = sources("import { x } from './nowhere.js';\nconsole.log(x);\n");
    const missingRun = await build(['--src', missing.src, '--out', missing.out]);
    expect(missingRun.code).toBe(1);
    expect(missingRun.stderr).toContain('nowhere.js');
    expect(existsSync(join(missing.out, 'index.html'))).toBe(false);

    const remote = sources();
    writeFileSync(join(remote.src, 'app.css'), "@import url('https://fonts.example.com/x.css');\n.a { color: red; }\n");
    const remoteRun = await build(['--src', remote.src, '--out', remote.out]);
    expect(remoteRun.code).toBe(1);
    expect(remoteRun.stderr).toContain('the bundle would load https://fonts.example.com/x.css at run time');
    writeFileSync(join(remote.src, 'app.css'), '.a { background: url(//cdn.example.com/a.png) }\n');
    const urlRun = await build(['--src', remote.src, '--out', remote.out]);
    expect(urlRun.code).toBe(1);
    expect(urlRun.stderr).toMatch(/cdn\.example\.com\/a\.png at run time|another origin/);
    expect(existsSync(join(remote.out, 'index.html'))).toBe(false);

    const remoteScript = sources("import './app.css';\nimport x from 'https://cdn.example.com/x.js';\nconsole.log(x, import('//cdn.example.com/y.js'));\n");
    const remoteScriptRun = await build(['--src', remoteScript.src, '--out', remoteScript.out]);
    expect(remoteScriptRun.code).toBe(1);
    expect(remoteScriptRun.stderr).toContain('the bundle would load https://cdn.example.com/x.js, //cdn.example.com/y.js at run time');

    const inline = sources();
    writeFileSync(join(inline.src, 'index.html'), TEMPLATE.replace('</head>', '<script>alert(1)</script></head>'));
    const inlineRun = await build(['--src', inline.src, '--out', inline.out]);
    expect(inlineRun.code).toBe(1);
    expect(inlineRun.stderr).toContain('an inline <script>');

    const noCss = sources("console.log('no styles');\n");
    const noCssRun = await build(['--src', noCss.src, '--out', noCss.out]);
    expect(noCssRun.code).toBe(1);
    expect(noCssRun.stderr).toContain('imports no CSS');

    const unknown = await build(['--outdir', noCss.out]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('--outdir');
  });

  it("builds the repository's console (src/console) into a temp dir", async () => {
    const { out } = sources();
    const run = await build(['--out', out]);
    expect(run.code, run.stderr).toBe(0);
    const { script, style, assets } = built(out);
    expect(assets).toEqual([script, `${script}.map`, style, `${style}.map`].sort());
    expect(readFileSync(join(out, 'assets', style), 'utf8')).toContain('.uplot');
  });
});
