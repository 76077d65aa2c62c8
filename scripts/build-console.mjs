#!/usr/bin/env node
// Builds the web console: bundles src/console/main.ts (and the CSS it imports, uPlot's included) with esbuild into
// <out>/assets/app-<hash>.js and .css with source maps, writes <out>/index.html from src/console/index.html with the
// hashed names filled in, and removes the hashed files of earlier builds. Exits 1 on any error. No network is used.
//
// Usage: node scripts/build-console.mjs [--src <dir>] [--out <dir>]
//   --src  the console sources: main.ts and index.html (default src/console)
//   --out  where the build goes (default dist/console)
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import * as esbuild from 'esbuild';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
/** Browsers the bundle is written for: ES2022 and the engines of early 2024 (the browser test drives Debian's chromium). */
const TARGETS = ['es2022', 'chrome120', 'firefox121', 'safari17'];
/** What the template names and the build replaces with the hashed bundles. */
const TEMPLATE_SCRIPT = 'src="assets/app.js"';
const TEMPLATE_STYLE = 'href="assets/app.css"';
const ASSETS_DIR = 'assets';

/** Fails the build with a message (exit status 1). */
class BuildError extends Error {}

function options() {
  const { values } = parseArgs({ options: { src: { type: 'string' }, out: { type: 'string' } }, strict: true, allowPositionals: false });
  return { src: resolve(values.src ?? join(ROOT, 'src', 'console')), out: resolve(values.out ?? join(ROOT, 'dist', 'console')) };
}

/** Refuses a template that would break the page's policy (no inline code: script-src and style-src are 'self' only). */
function checkTemplate(html) {
  const problems = [];
  if (/<style\b/i.test(html)) problems.push('a <style> element');
  if (/\sstyle\s*=/i.test(html)) problems.push('a style attribute');
  if (/\son[a-z]+\s*=/i.test(html)) problems.push('an event handler attribute');
  for (const tag of html.match(/<script\b[^>]*>/gi) ?? []) if (!/\ssrc\s*=/i.test(tag)) problems.push('an inline <script>');
  for (const needle of [TEMPLATE_SCRIPT, TEMPLATE_STYLE]) {
    const count = html.split(needle).length - 1;
    if (count !== 1) problems.push(`${needle} ${count} times (once expected)`);
  }
  if (problems.length > 0) throw new BuildError(`index.html template: ${problems.join('; ')}`);
}

/** Refuses CSS that would load anything from another origin at run time. */
function checkNoNetwork(path, text) {
  if (/@import\s*(url\(\s*)?["']?\s*(https?:)?\/\//i.test(text) || /url\(\s*["']?\s*(https?:)?\/\//i.test(text)) {
    throw new BuildError(`${basename(path)} loads a file from another origin; bundle it from an npm package instead`);
  }
}

async function bundle(src, assetsDir) {
  try {
    return await esbuild.build({
      absWorkingDir: ROOT,
      entryPoints: [{ in: join(src, 'main.ts'), out: 'app' }],
      outdir: assetsDir,
      entryNames: '[name]-[hash]',
      assetNames: '[name]-[hash]',
      bundle: true,
      format: 'esm',
      platform: 'browser',
      target: TARGETS,
      minify: true,
      sourcemap: 'linked',
      charset: 'utf8',
      legalComments: 'eof',
      tsconfig: join(ROOT, 'tsconfig.console.json'),
      // Packages resolve from this repository's node_modules even for sources outside it (tests build fixtures in a temp dir).
      nodePaths: [join(ROOT, 'node_modules')],
      loader: { '.svg': 'file', '.png': 'file', '.woff2': 'file' },
      metafile: true,
      write: false,
      logLevel: 'warning',
    });
  } catch (error) {
    // esbuild has printed each error with its file and line already.
    const count = Array.isArray(error?.errors) ? error.errors.length : 1;
    throw new BuildError(`esbuild failed with ${count} error${count === 1 ? '' : 's'}${Array.isArray(error?.errors) ? '' : `: ${error?.message ?? error}`}`);
  }
}

/** Refuses a bundle that leaves any import to be fetched at run time (esbuild keeps `https://` and `//` imports external). */
function checkNothingExternal(result) {
  const external = Object.values(result.metafile.outputs).flatMap((output) => output.imports.filter((entry) => entry.external).map((entry) => entry.path));
  if (external.length > 0) throw new BuildError(`the bundle would load ${external.join(', ')} at run time; bundle it from an npm package instead`);
}

/** The hashed script and style sheet of the entry point, relative to the assets folder. */
function entryOutputs(result, assetsDir) {
  const entries = Object.entries(result.metafile.outputs).filter(([, output]) => output.entryPoint !== undefined);
  const script = entries.find(([path]) => path.endsWith('.js'));
  if (script === undefined) throw new BuildError('esbuild wrote no script for main.ts');
  const style = script[1].cssBundle;
  if (style === undefined) throw new BuildError('main.ts imports no CSS (the page links one style sheet: import the console and uPlot styles from main.ts)');
  const name = (path) => relative(assetsDir, resolve(ROOT, path)).split('\\').join('/');
  return { script: name(script[0]), style: name(style) };
}

function writeAtomically(path, data) {
  const temporary = `${path}.tmp-${process.pid}`;
  writeFileSync(temporary, data);
  renameSync(temporary, path);
}

async function main() {
  const started = performance.now();
  const { src, out } = options();
  const assetsDir = join(out, ASSETS_DIR);
  const template = readFileSync(join(src, 'index.html'), 'utf8');
  checkTemplate(template);
  const result = await bundle(src, assetsDir);
  checkNothingExternal(result);
  const { script, style } = entryOutputs(result, assetsDir);
  mkdirSync(assetsDir, { recursive: true });
  const written = new Set();
  for (const file of result.outputFiles) {
    if (dirname(file.path) !== assetsDir) throw new BuildError(`esbuild wrote outside ${assetsDir}: ${file.path}`);
    if (file.path.endsWith('.css')) checkNoNetwork(file.path, file.text);
    writeAtomically(file.path, file.contents);
    written.add(basename(file.path));
  }
  // The page last: until it is replaced, it names the previous build's files, which are still there.
  const html = template
    .replace(/<!--[\s\S]*?-->\n?/g, '')
    .replace(TEMPLATE_SCRIPT, `src="${ASSETS_DIR}/${script}"`)
    .replace(TEMPLATE_STYLE, `href="${ASSETS_DIR}/${style}"`);
  writeAtomically(join(out, 'index.html'), html);
  const stale = readdirSync(assetsDir).filter((name) => !written.has(name));
  for (const name of stale) rmSync(join(assetsDir, name), { recursive: true, force: true });
  const sizes = [script, style].map((name) => `${ASSETS_DIR}/${name} (${Math.round(result.outputFiles.find((f) => basename(f.path) === name).contents.length / 1024)} KiB)`);
  console.log(`console built in ${Math.round(performance.now() - started)} ms: ${sizes.join(', ')}${stale.length > 0 ? `; removed ${stale.length} stale file(s)` : ''}`);
}

try {
  await main();
} catch (error) {
  console.error(`build-console: ${error instanceof BuildError ? error.message : (error?.stack ?? error)}`);
  process.exitCode = 1;
}
