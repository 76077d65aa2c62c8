// Tests the agent endpoint flags of strata serve: parsing, which port each zone gets (also with --zones), and the certificate names.
import { Command } from 'commander';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { AGENT_PORTS_DEFAULT, agentCertHostsOf, agentListenOf, agentServeOptions, type AgentServeFlags } from '../../src/cli/agent-serve-options.js';
import { isStrataError } from '../../src/core/errors.js';

const CONFIGURED = ['mzdfw', 'mziad', 'mzord'];

function parse(args: readonly string[]): AgentServeFlags {
  const command = new Command('serve').exitOverride().configureOutput({ writeErr: () => undefined });
  for (const option of agentServeOptions()) command.addOption(option);
  command.parse(['node', 'serve', ...args]);
  return command.opts<AgentServeFlags>();
}

describe('agent serve options', () => {
  it('defaults to the reference ports on loopback with a 30 s heartbeat, and --no-agent-endpoint turns it off', () => {
    expect(parse([])).toMatchObject({ agentEndpoint: true, agentHost: '127.0.0.1', agentPorts: [50041, 50051, 50061], agentHeartbeatMs: 30_000 });
    expect(parse(['--no-agent-endpoint']).agentEndpoint).toBe(false);
    expect(parse(['--agent-ports', '0,0,0', '--agent-cert-hosts', 'mon.example.com,10.0.0.5']).agentCertHosts).toEqual(['mon.example.com', '10.0.0.5']);
  });

  it('refuses bad ports, hosts and heartbeat intervals', () => {
    for (const args of [['--agent-ports', '1,,2'], ['--agent-ports', '70000'], ['--agent-ports', 'x'], ['--agent-host', 'a_b'], ['--agent-cert-hosts', '*.example.com'], ['--agent-heartbeat-ms', '5']]) {
      expect(() => parse(args), args.join(' ')).toThrow();
    }
    expect(parse(['--agent-host', '0.0.0.0']).agentHost).toBe('0.0.0.0');
  });

  it('gives each zone run its own port: by configured position when all are listed, in order when one per zone run', () => {
    fc.assert(
      fc.property(fc.subarray(CONFIGURED, { minLength: 1 }), fc.array(fc.integer({ min: 0, max: 65_535 }), { minLength: 3, maxLength: 3 }), (run, ports) => {
        const flags = { ...parse([]), agentPorts: ports };
        const listen = agentListenOf(flags, CONFIGURED, run);
        expect(listen.map((l) => l.zoneId)).toEqual(run);
        for (const l of listen) expect(l.port).toBe(ports[CONFIGURED.indexOf(l.zoneId)]);
        const own = agentListenOf({ ...flags, agentPorts: ports.slice(0, run.length) }, CONFIGURED, run);
        if (run.length !== CONFIGURED.length) expect(own.map((l) => l.port)).toEqual(ports.slice(0, run.length));
      }),
    );
    expect(agentListenOf(parse([]), CONFIGURED, ['mziad'])).toEqual([{ zoneId: 'mziad', host: '127.0.0.1', port: AGENT_PORTS_DEFAULT[1] }]);
  });

  it('refuses a port count that is neither the configured zones nor the zones run', () => {
    try {
      agentListenOf({ ...parse([]), agentPorts: [1, 2] }, CONFIGURED, CONFIGURED);
      expect.unreachable();
    } catch (error) {
      expect(isStrataError(error) && error.code).toBe('CONFIG_INVALID');
    }
  });

  it('issues the certificate for the loopback names plus a specific listen address, or exactly the names given', () => {
    const defaults = ['localhost', '127.0.0.1', '::1'];
    expect(agentCertHostsOf(parse([]), defaults)).toEqual(defaults);
    expect(agentCertHostsOf(parse(['--agent-host', '10.1.2.3']), defaults)).toEqual([...defaults, '10.1.2.3']);
    expect(agentCertHostsOf(parse(['--agent-host', '0.0.0.0']), defaults)).toEqual(defaults);
    expect(agentCertHostsOf(parse(['--agent-cert-hosts', 'mon.example.com']), defaults)).toEqual(['mon.example.com']);
  });
});
