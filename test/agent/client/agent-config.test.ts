// Tests the agent configuration: the reference fixture file, flags over the file, and each refusal naming its option.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StrataError } from '../../../src/core/errors.js';
import { AGENT_CONFIG_FILE_BYTES_MAX, AGENT_ENDPOINTS_MAX } from '../../../src/agent/agent-limits.js';
import {
  loadAgentConfigFile,
  parseAgentConfigFile,
  parseEndpoint,
  parseEndpoints,
  resolveAgentConfig,
  type AgentConfigFile,
  type AgentFlags,
} from '../../../src/agent/client/agent-config.js';

const TOKEN = '4c5e28f0-0b3f-11e1-860d-c55c4705a286:1234';
const DEFAULTS = { agentId: 'host.example.com', stateDir: './agent-state' };
/** The reference agent's test configuration (monitoring-agent-localhost.cfg), with a CA path added. */
const REFERENCE_FILE = `monitoring_id agentA
monitoring_token ${TOKEN}
monitoring_endpoints 127.0.0.1:50041,127.0.0.1:50051,127.0.0.1:50061
certificate_path /etc/strata/agent-root.crt
`;

let dir: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'strata-agent-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function refusal(run: () => unknown): StrataError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    expect((error as StrataError).code).toBe('CONFIG_INVALID');
    return error as StrataError;
  }
  throw new Error('expected CONFIG_INVALID');
}

function resolve(flags: AgentFlags, text?: string) {
  return resolveAgentConfig(flags, text === undefined ? undefined : parseAgentConfigFile(text), DEFAULTS);
}

describe('agent configuration', () => {
  it('reads the reference agent fixture', () => {
    expect(resolve({}, REFERENCE_FILE)).toEqual({
      token: TOKEN,
      agentId: 'agentA',
      endpoints: [
        { host: '127.0.0.1', port: 50041 },
        { host: '127.0.0.1', port: 50051 },
        { host: '127.0.0.1', port: 50061 },
      ],
      caPath: '/etc/strata/agent-root.crt',
      stateDir: './agent-state',
      guid: undefined,
      updateKeyPath: undefined,
      updateChannel: undefined,
    });
  });

  it('lets flags win over the file, and the file over the defaults', () => {
    const file = `${REFERENCE_FILE}state_dir /var/lib/strata-agent\nupdate_public_key /etc/strata/update.pub\nupdate_channel beta\n`;
    const config = resolve({ token: 'other:1', id: 'agentB', endpoints: 'endpoint.example.com:443', ca: 'root.pem', updateChannel: 'stable' }, file);
    expect(config).toMatchObject({
      token: 'other:1',
      agentId: 'agentB',
      endpoints: [{ host: 'endpoint.example.com', port: 443 }],
      caPath: 'root.pem',
      stateDir: '/var/lib/strata-agent',
      updateKeyPath: '/etc/strata/update.pub',
      updateChannel: 'stable',
    });
  });

  it('needs a token, endpoints and a CA, naming the flag and the file key of each', () => {
    expect(refusal(() => resolve({ endpoints: 'a:1', ca: 'c' })).message).toMatch(/--token \(monitoring_token\)/);
    expect(refusal(() => resolve({ token: TOKEN, ca: 'c' })).message).toMatch(/--endpoints \(monitoring_endpoints\)/);
    expect(refusal(() => resolve({ token: TOKEN, endpoints: 'a:1' })).message).toMatch(/--ca \(certificate_path\)/);
  });

  it('uses the host name as the agent id unless told, and refuses one that is not an agent id', () => {
    expect(resolve({ token: TOKEN, endpoints: 'a:1', ca: 'c' }).agentId).toBe('host.example.com');
    expect(refusal(() => resolve({ token: TOKEN, endpoints: 'a:1', ca: 'c', id: 'my_host' })).details).toMatchObject({ option: '--id (monitoring_id)' });
  });

  it('refuses a token with blanks without repeating it', () => {
    const error = refusal(() => resolve({ token: 'secret token', endpoints: 'a:1', ca: 'c' }));
    expect(error.message).not.toContain('secret');
  });

  it('names the line of an unknown key', () => {
    expect(refusal(() => parseAgentConfigFile('monitoring_id a\n\nmonitoring_tokn x\n')).message).toMatch(/^line 3 of the agent configuration file must be one of/);
  });

  it('accepts and lists the reference keys it ignores', () => {
    const file: AgentConfigFile = parseAgentConfigFile('# comment\nmonitoring_snet_region dfw\nmonitoring_insecure true\nmonitoring_id a\n');
    expect(file).toEqual({ values: { monitoring_id: 'a' }, ignored: ['monitoring_snet_region', 'monitoring_insecure'] });
  });

  it('turns updates off with monitoring_upgrade disabled, and refuses other values', () => {
    expect(resolve({ updateKey: 'k.pub' }, `${REFERENCE_FILE}monitoring_upgrade disabled\n`).updateKeyPath).toBeUndefined();
    expect(resolve({ updateKey: 'k.pub' }, `${REFERENCE_FILE}monitoring_upgrade enabled\n`).updateKeyPath).toBe('k.pub');
    refusal(() => resolve({}, `${REFERENCE_FILE}monitoring_upgrade off\n`));
  });

  it('takes monitoring_guid when it is a UUID, in lower case', () => {
    expect(resolve({}, `${REFERENCE_FILE}monitoring_guid 0B49B96D-24C9-45CA-C585-4040707F4880\n`).guid).toBe('0b49b96d-24c9-45ca-c585-4040707f4880');
    refusal(() => resolve({}, `${REFERENCE_FILE}monitoring_guid agentA-guid\n`));
  });

  it('refuses an update channel that is not a channel name', () => {
    refusal(() => resolve({ updateChannel: 'Stable!' }, REFERENCE_FILE));
  });

  it('refuses a file larger than AGENT_CONFIG_FILE_BYTES_MAX and a file that cannot be read', () => {
    refusal(() => parseAgentConfigFile(`# ${'x'.repeat(AGENT_CONFIG_FILE_BYTES_MAX)}\n`));
    const big = join(dir, 'big.cfg');
    writeFileSync(big, `# ${'x'.repeat(AGENT_CONFIG_FILE_BYTES_MAX)}\n`);
    expect(refusal(() => loadAgentConfigFile(big)).message).toMatch(/--config/);
    expect(refusal(() => loadAgentConfigFile(join(dir, 'missing.cfg'))).message).toMatch(/ENOENT/);
    const good = join(dir, 'agent.cfg');
    writeFileSync(good, REFERENCE_FILE);
    expect(loadAgentConfigFile(good).values.monitoring_id).toBe('agentA');
  });
});

describe('endpoints', () => {
  it('default to port 443 without one, as the reference agent does', () => {
    expect(parseEndpoint('monitoring.example.com')).toEqual({ host: 'monitoring.example.com', port: 443 });
  });

  it('take IPv6 addresses in brackets', () => {
    expect(parseEndpoints('[::1]:50041, [2001:db8::5]')).toEqual([
      { host: '::1', port: 50041 },
      { host: '2001:db8::5', port: 443 },
    ]);
    refusal(() => parseEndpoints('::1:50041'));
    refusal(() => parseEndpoints('[not-v6]:1'));
  });

  it('refuse bad hosts and ports, duplicates, empty entries and more than AGENT_ENDPOINTS_MAX', () => {
    for (const text of ['a:0', 'a:65536', 'a:x', 'a:', 'bad_host:1', '', 'a:1,,b:2', 'a:1,A:1', 'h:1:2']) refusal(() => parseEndpoints(text));
    const many = Array.from({ length: AGENT_ENDPOINTS_MAX + 1 }, (_, i) => `h${i}:1`).join(',');
    expect(refusal(() => parseEndpoints(many)).message).toMatch(`at most ${AGENT_ENDPOINTS_MAX} endpoints`);
  });
});
