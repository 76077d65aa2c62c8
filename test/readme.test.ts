// Runs the README's embedding example, so the documentation cannot drift from the code.
import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('..', import.meta.url));

describe('README', () => {
  it('shows an embedding example that runs and prints what the README says', () => {
    const readme = readFileSync(`${root}README.md`, 'utf8');
    const block = /<!-- embed-example:start -->\s*```js\n([\s\S]*?)```\s*<!-- embed-example:end -->/.exec(readme)?.[1];
    expect(block).toBeDefined();
    // Inside the package, `import ... from 'strata'` resolves to the package itself (self-reference).
    mkdirSync(`${root}.tmp`, { recursive: true });
    writeFileSync(`${root}.tmp/readme-example.mjs`, block as string);
    const out = execFileSync(process.execPath, [`${root}.tmp/readme-example.mjs`], { encoding: 'utf8' }).trim().split('\n');
    expect(out[0]).toBe('accepted 120, rejected 0');
    expect(out[1]).toMatch(/^MIN5 12 \{ timestamp: \d+, numPoints: 10, average: 44\.5, max: 49 \}$/);
    expect(out[2]).toBe('true');
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });
});
