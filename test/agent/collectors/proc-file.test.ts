// Tests of the bounded /proc reader: whole files under the limit, longer ones cut at their last complete line, errors passed on.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { readProcFile } from '../../../src/agent/collectors/proc-file.js';
import { FixtureRoot } from './proc-fixtures.js';

describe('readProcFile', () => {
  let root: FixtureRoot | undefined;
  afterEach(() => root?.remove());

  it('reads a file at or under the limit whole, and reads real /proc files that report size 0', async () => {
    root = new FixtureRoot({ small: 'a b\nc d\n' });
    expect(await readProcFile(join(root.procRoot, 'small'), 8)).toEqual({ text: 'a b\nc d\n', truncated: false });
    const stat = await readProcFile('/proc/stat');
    expect(stat.truncated).toBe(false);
    expect(stat.text.startsWith('cpu ')).toBe(true);
  });

  it('cuts a longer file back to its last complete line within the limit', async () => {
    root = new FixtureRoot({ long: 'line one\nline two\nline three\n' });
    expect(await readProcFile(join(root.procRoot, 'long'), 20)).toEqual({ text: 'line one\nline two\n', truncated: true });
    expect(await readProcFile(join(root.procRoot, 'long'), 5)).toEqual({ text: '', truncated: true });
  });

  it('reads across many chunks up to the limit', async () => {
    root = new FixtureRoot({});
    const line = `${'x'.repeat(99)}\n`;
    writeFileSync(join(root.procRoot, 'big'), line.repeat(3000));
    const read = await readProcFile(join(root.procRoot, 'big'), 200_050);
    expect(read).toEqual({ text: line.repeat(2000), truncated: true });
    expect((await readProcFile(join(root.procRoot, 'big'), 300_000)).truncated).toBe(false);
  });

  it('rejects with the file system error naming the path', async () => {
    root = new FixtureRoot({});
    await expect(readProcFile(join(root.procRoot, 'missing'))).rejects.toMatchObject({ code: 'ENOENT', path: join(root.procRoot, 'missing') });
  });
});
