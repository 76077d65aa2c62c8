// Checks `strata agent-ca export` and `renew` through commander in-process: what they print, what they write, and how they fail.
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CommanderError, type Command } from 'commander';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { AGENT_CA_DIR_NAME } from '../../src/agent/endpoint/agent-ca.js';
import { agentCaCommand } from '../../src/cli/agent-ca-command.js';

const dirs: string[] = [];

function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'strata-cli-agent-ca-'));
  dirs.push(dir);
  return dir;
}

/** What one in-process run printed and the exit status it set (commander's parse errors throw instead of exiting). */
interface Run {
  readonly stdout: string;
  readonly stderr: string;
  readonly exitCode: number | undefined;
}

/** The command with commander's exits turned into CommanderErrors and its own error output captured into `stderr`. */
function command(stderr: string[]): Command {
  const root = agentCaCommand();
  for (const cmd of [root, ...root.commands]) cmd.exitOverride().configureOutput({ writeErr: (text) => stderr.push(text), writeOut: () => undefined });
  return root;
}

async function run(...args: string[]): Promise<Run> {
  const out: string[] = [];
  const err: string[] = [];
  const stdout = vi.spyOn(process.stdout, 'write').mockImplementation((chunk) => (out.push(String(chunk)), true));
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => (err.push(String(chunk)), true));
  try {
    await command(err).parseAsync(['node', 'strata-agent-ca', ...args]);
  } catch (error) {
    if (!(error instanceof CommanderError)) throw error;
    process.exitCode = error.exitCode;
  } finally {
    stdout.mockRestore();
    stderr.mockRestore();
  }
  const exitCode = process.exitCode === undefined ? undefined : Number(process.exitCode);
  process.exitCode = undefined;
  return { stdout: out.join(''), stderr: err.join(''), exitCode };
}

afterEach(() => {
  process.exitCode = undefined;
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('strata agent-ca export', () => {
  it('prints the root certificate, creating the CA on first use, the same one every time', async () => {
    const dataDir = join(tempDir(), 'data');
    const first = await run('export', '--data', dataDir);
    expect(first).toMatchObject({ stderr: '', exitCode: undefined });
    expect(first.stdout).toBe(readFileSync(join(dataDir, AGENT_CA_DIR_NAME, 'root.crt'), 'utf8'));
    expect(new X509Certificate(first.stdout)).toMatchObject({ ca: true, subject: 'CN=Strata agent root CA' });
    expect((await run('export', '--data', dataDir)).stdout).toBe(first.stdout);
  });

  it('reports a broken root with AGENT_CA_INVALID and exit status 1, printing no certificate', async () => {
    const dataDir = tempDir();
    await run('export', '--data', dataDir);
    writeFileSync(join(dataDir, AGENT_CA_DIR_NAME, 'root.crt'), 'garbage');
    const broken = await run('export', '--data', dataDir);
    expect(broken).toMatchObject({ stdout: '', exitCode: 1 });
    expect(broken.stderr).toMatch(/^strata: AGENT_CA_INVALID: .*root\.crt is not a PEM certificate/);
    expect(readFileSync(join(dataDir, AGENT_CA_DIR_NAME, 'root.crt'), 'utf8')).toBe('garbage');
  });
});

describe('strata agent-ca renew', () => {
  it('issues a server certificate for the given hosts under the unchanged root and prints its SANs and expiry', async () => {
    const dataDir = tempDir();
    const rootPem = (await run('export', '--data', dataDir)).stdout;
    const renewed = await run('renew', '--data', dataDir, '--host', 'agents.example.com', '10.0.0.5', '--host', '::1');
    expect(renewed).toMatchObject({ stderr: '', exitCode: undefined });
    const cert = new X509Certificate(readFileSync(join(dataDir, AGENT_CA_DIR_NAME, 'server.crt')));
    expect(cert.subjectAltName).toBe('DNS:agents.example.com, IP Address:10.0.0.5, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.verify(new X509Certificate(rootPem).publicKey)).toBe(true);
    expect(renewed.stdout).toBe(
      `subjectAltName: ${cert.subjectAltName ?? ''}\nexpires: ${new Date(Date.parse(cert.validTo)).toISOString()}\n` +
        `sha256 fingerprint: ${cert.fingerprint256}\na running server uses the new certificate after a restart\n`,
    );
    expect((await run('export', '--data', dataDir)).stdout).toBe(rootPem);
  });

  it('uses the default hosts without --host and a new key each time', async () => {
    const dataDir = tempDir();
    await run('renew', '--data', dataDir);
    const keyPath = join(dataDir, AGENT_CA_DIR_NAME, 'server.key');
    const firstKey = readFileSync(keyPath, 'utf8');
    const again = await run('renew', '--data', dataDir);
    expect(again.stdout).toContain('subjectAltName: DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1\n');
    expect(readFileSync(keyPath, 'utf8')).not.toBe(firstKey);
  });

  it('refuses a host that cannot be a SAN before touching the data directory', async () => {
    const dataDir = join(tempDir(), 'data');
    const refused = await run('renew', '--data', dataDir, '--host', 'not a host');
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('not a host is neither a DNS name nor an IP address');
    expect(existsSync(dataDir)).toBe(false);
  });
});
