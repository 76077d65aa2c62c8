// Tests strata user create and list as a process.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CLI, ensureBuilt, runCli } from './serve-process.js';

describe('strata user', () => {
  let dir: string;
  beforeAll(() => {
    ensureBuilt();
    dir = mkdtempSync(join(tmpdir(), 'strata-user-'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('creates users (generated or given key, admin or observer), lists them without keys, refuses duplicates', () => {
    const generated = runCli(['user', 'create', '--data', dir, '--username', 'ann', '--tenant', '42']);
    expect(generated).toMatch(/^username: ann\ntenant: 42\nrole: admin\napiKey: [0-9a-f]{32}\n$/);
    const given = runCli(['user', 'create', '--data', dir, '--username', 'obs', '--tenant', '42', '--role', 'observer', '--api-key', 'observer-key-0123456789']);
    expect(given).toContain('apiKey: observer-key-0123456789');
    const list = runCli(['user', 'list', '--data', dir]);
    expect(list.split('\n')[0]).toMatch(/^USERNAME\s+TENANT\s+ROLE\s+CREATED$/);
    expect(list).toMatch(/ann\s+42\s+admin\s+\d{4}-/);
    expect(list).toMatch(/obs\s+42\s+observer/);
    expect(list).not.toContain('observer-key');
    let failure: { status?: number; stderr?: string } = {};
    try {
      execFileSync(process.execPath, [CLI, 'user', 'create', '--data', dir, '--username', 'ann', '--tenant', '42'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      failure = error as { status?: number; stderr?: string };
    }
    expect(failure.status).toBe(1);
    expect(failure.stderr).toBe('strata: IDENTITY_USERNAME_TAKEN: a user named ann exists already\n');
    try {
      execFileSync(process.execPath, [CLI, 'user', 'create', '--data', dir, '--username', 'bad name', '--tenant', '42'], { encoding: 'utf8', stdio: 'pipe' });
    } catch (error) {
      failure = error as { status?: number; stderr?: string };
    }
    expect(failure.status).toBe(2);
    expect(failure.stderr).toMatch(/^strata: IDENTITY_USER_INVALID: username must be/);
  });
});
