// Checks `strata agent-update` in process: keygen writes a private key pair, sign publishes what agents verify, verify exits 0 or 1; RSA keys made by openssl work both ways.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError } from 'commander';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { verifyBundle } from '../../src/agent/update/bundle-signature.js';
import { UpdateStore } from '../../src/agent/update/update-store.js';
import { agentUpdateCommand } from '../../src/cli/agent-update-command.js';
import { ensureProgram } from '../support/debian-program.js';

interface Run {
  readonly out: string;
  readonly err: string;
  readonly exitCode: number;
}

/** Parses `args` with a fresh command, collecting what it prints and the exit code it sets. */
async function run(...args: string[]): Promise<Run> {
  let out = '';
  let err = '';
  const command = agentUpdateCommand({ out: (text) => void (out += text), err: (text) => void (err += text) });
  for (const each of [command, ...command.commands]) each.exitOverride().configureOutput({ writeOut: (text) => void (out += text), writeErr: (text) => void (err += text) });
  process.exitCode = undefined;
  let exitCode: number;
  try {
    await command.parseAsync(args, { from: 'user' });
    exitCode = Number(process.exitCode ?? 0);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    exitCode = error.exitCode;
  } finally {
    process.exitCode = undefined;
  }
  return { out, err, exitCode };
}

let dir: string;
beforeAll(() => ensureProgram('openssl', 'openssl'));
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-agent-update-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('strata agent-update', () => {
  it('keygen writes a private key (0600) and its public key in a new 0700 directory, and never overwrites a key', async () => {
    const keys = join(dir, 'keys');
    const first = await run('keygen', '--out', keys);
    expect(first.exitCode).toBe(0);
    expect(first.out).toContain('update-signing.key');
    expect(statSync(keys).mode & 0o777).toBe(0o700);
    expect(statSync(join(keys, 'update-signing.key')).mode & 0o777).toBe(0o600);
    expect(statSync(join(keys, 'update-signing.pub')).mode & 0o777).toBe(0o644);
    const key = readFileSync(join(keys, 'update-signing.key'), 'utf8');
    expect(key).toContain('BEGIN PRIVATE KEY');
    const again = await run('keygen', '--out', keys);
    expect(again.exitCode).toBe(2);
    expect(again.err).toContain('CONFIG_INVALID');
    expect(readFileSync(join(keys, 'update-signing.key'), 'utf8')).toBe(key);
  });

  it('sign publishes into the data directory what verify and agents accept', async () => {
    await run('keygen', '--out', join(dir, 'keys'));
    const bundleFile = join(dir, 'bundle.tar');
    writeFileSync(bundleFile, 'bundle contents '.repeat(1000));
    const data = join(dir, 'data');
    const signed = await run('sign', '--key', join(dir, 'keys', 'update-signing.key'), '--bundle', bundleFile, '--version', '1.4.0', '--out', data);
    expect(signed).toMatchObject({ exitCode: 0, err: '' });
    expect(signed.out).toMatch(/^published stable 1\.4\.0 \(16000 bytes, sha256 [0-9a-f]{64}\) in /);
    const store = new UpdateStore(data);
    expect(store.latestVersion('stable')).toBe('1.4.0');
    const sigFile = store.filePath('stable', '1.4.0', 'bundle.sig') ?? '';
    const pub = readFileSync(join(dir, 'keys', 'update-signing.pub'), 'utf8');
    expect(() => verifyBundle(readFileSync(bundleFile), readFileSync(sigFile), pub)).not.toThrow();
    const ok = await run('verify', '--key', join(dir, 'keys', 'update-signing.pub'), '--bundle', bundleFile, '--signature', sigFile);
    expect(ok).toEqual({ out: 'signature valid\n', err: '', exitCode: 0 });

    const beta = await run('sign', '--key', join(dir, 'keys', 'update-signing.key'), '--bundle', bundleFile, '--version', '2', '--out', data, '--channel', 'beta');
    expect(beta.exitCode).toBe(0);
    expect(store.latestVersion('beta')).toBe('2');
  });

  it('verify exits 1 for a tampered bundle or a signature by another key', async () => {
    await run('keygen', '--out', join(dir, 'a'));
    await run('keygen', '--out', join(dir, 'b'));
    const bundleFile = join(dir, 'bundle');
    writeFileSync(bundleFile, 'v1');
    const data = join(dir, 'data');
    await run('sign', '--key', join(dir, 'a', 'update-signing.key'), '--bundle', bundleFile, '--version', '1', '--out', data);
    const sigFile = new UpdateStore(data).filePath('stable', '1', 'bundle.sig') ?? '';
    const otherKey = await run('verify', '--key', join(dir, 'b', 'update-signing.pub'), '--bundle', bundleFile, '--signature', sigFile);
    expect(otherKey.exitCode).toBe(1);
    expect(otherKey.err).toContain('AGENT_UPDATE_SIGNATURE_INVALID');
    writeFileSync(bundleFile, 'v2');
    const tampered = await run('verify', '--key', join(dir, 'a', 'update-signing.pub'), '--bundle', bundleFile, '--signature', sigFile);
    expect(tampered.exitCode).toBe(1);
    expect(tampered.out).toBe('');
    const missing = await run('verify', '--key', join(dir, 'a', 'update-signing.pub'), '--bundle', bundleFile, '--signature', join(dir, 'nope'));
    expect(missing.exitCode).toBe(1);
  });

  it('signs with an RSA key made by openssl; openssl verifies the published signature', async () => {
    const keyFile = join(dir, 'rsa.key');
    execFileSync('openssl', ['genpkey', '-algorithm', 'RSA', '-pkeyopt', 'rsa_keygen_bits:2048', '-out', keyFile]);
    execFileSync('openssl', ['pkey', '-in', keyFile, '-pubout', '-out', join(dir, 'rsa.pub')]);
    const bundleFile = join(dir, 'bundle');
    writeFileSync(bundleFile, 'rsa bundle');
    const data = join(dir, 'data');
    expect((await run('sign', '--key', keyFile, '--bundle', bundleFile, '--version', '3.0', '--out', data)).exitCode).toBe(0);
    const sigFile = new UpdateStore(data).filePath('stable', '3.0', 'bundle.sig') ?? '';
    const verified = execFileSync('openssl', ['dgst', '-sha256', '-verify', join(dir, 'rsa.pub'), '-signature', sigFile, bundleFile]).toString();
    expect(verified.trim()).toBe('Verified OK');
    execFileSync('openssl', ['dgst', '-sha256', '-sign', keyFile, '-out', join(dir, 'openssl.sig'), bundleFile]);
    expect((await run('verify', '--key', join(dir, 'rsa.pub'), '--bundle', bundleFile, '--signature', join(dir, 'openssl.sig'))).exitCode).toBe(0);
  });

  it('sign refuses a bad version, a version already published, and a key that is not a signing key', async () => {
    await run('keygen', '--out', join(dir, 'keys'));
    const key = join(dir, 'keys', 'update-signing.key');
    const bundleFile = join(dir, 'bundle');
    writeFileSync(bundleFile, 'x');
    const data = join(dir, 'data');
    const bad = await run('sign', '--key', key, '--bundle', bundleFile, '--version', '1.x', '--out', data);
    expect(bad.exitCode).toBe(2);
    expect(bad.err).toContain('CONFIG_INVALID');
    expect((await run('sign', '--key', key, '--bundle', bundleFile, '--version', '1', '--out', data)).exitCode).toBe(0);
    expect((await run('sign', '--key', key, '--bundle', bundleFile, '--version', '1', '--out', data)).exitCode).toBe(2);
    const publicAsKey = await run('sign', '--key', join(dir, 'keys', 'update-signing.pub'), '--bundle', bundleFile, '--version', '2', '--out', data);
    expect(publicAsKey.exitCode).toBe(2);
    expect(new UpdateStore(data).latestVersion('stable')).toBe('1');
  });

  it('requires its options', async () => {
    const missing = await run('sign', '--key', 'k', '--bundle', 'b');
    expect(missing.exitCode).toBe(1);
    expect(missing.err).toContain('--version');
  });
});
