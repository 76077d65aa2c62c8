// Tests of the runtime's `strata serve` flags: defaults, repeatable --check-deny (flag and env), zones, SMTP and gateways, and that they build a runtime.
import { Command, CommanderError } from 'commander';
import { afterEach, describe, expect, it } from 'vitest';
import { runtimeOptionsOf, serveOptions, type ServeOptions } from '../../src/cli/serve-options.js';
import { systemClock } from '../../src/core/clock.js';
import { openFeeds } from '../../src/feeds/feeds-service.js';
import { CHECK_CONCURRENCY_DEFAULT, DELIVERY_ATTEMPTS_DEFAULT } from '../../src/monitoring/monitoring-limits.js';
import { MonitoringRuntime } from '../../src/monitoring/monitoring-runtime.js';
import { openMonitoring } from '../../src/monitoring/monitoring-service.js';
import { collectingLogger } from './runner/runner-fixtures.js';

const ENV_NAMES = ['STRATA_CHECK_DENY', 'STRATA_ZONES', 'STRATA_SMTP_HOST'];
afterEach(() => {
  for (const name of ENV_NAMES) delete process.env[name];
});

function parse(argv: string[]): ServeOptions {
  const command = new Command('serve').exitOverride().configureOutput({ writeErr: () => {} });
  for (const option of serveOptions()) command.addOption(option);
  let parsed: ServeOptions | undefined;
  command.action((options: ServeOptions) => {
    parsed = options;
  });
  command.parse(argv, { from: 'user' });
  return parsed as ServeOptions;
}

describe('strata serve runtime flags', () => {
  it('default to no denied range, the default concurrency, every zone, no SMTP relay or gateways', () => {
    const runtime = runtimeOptionsOf(parse([]));
    expect(runtime).toEqual({
      checkDeny: [],
      checkConcurrency: CHECK_CONCURRENCY_DEFAULT,
      delivery: {
        attemptsMax: DELIVERY_ATTEMPTS_DEFAULT,
        vendorPrefix: 'RAX',
        smtp: undefined,
        gateways: { sms: undefined, incidentA: undefined, incidentB: undefined },
      },
    });
  });

  it('collect --check-deny from every repetition and from comma lists, or from STRATA_CHECK_DENY', () => {
    expect(parse(['--check-deny', '10.0.0.0/8', '--check-deny', '192.168.0.0/16,fd00::/8']).checkDeny).toEqual(['10.0.0.0/8', '192.168.0.0/16', 'fd00::/8']);
    process.env['STRATA_CHECK_DENY'] = '169.254.0.0/16, 127.0.0.0/8';
    expect(parse([]).checkDeny).toEqual(['169.254.0.0/16', '127.0.0.0/8']);
  });

  it('map zones, SMTP, gateways and attempts to the runtime options', () => {
    const options = parse([
      '--zones', 'mzdfw,mziad',
      '--check-concurrency', '64',
      '--smtp-host', 'mail.internal', '--smtp-port', '2525', '--smtp-from', 'alerts@example.com', '--smtp-secure',
      '--sms-gateway', 'http://sms.internal/send',
      '--incident-a-endpoint', 'http://pager.internal/',
      '--incident-b-endpoint', 'http://ops.internal/',
      '--delivery-attempts', '3',
    ]);
    expect(runtimeOptionsOf(options)).toEqual({
      checkDeny: [],
      checkConcurrency: 64,
      zones: ['mzdfw', 'mziad'],
      delivery: {
        attemptsMax: 3,
        vendorPrefix: 'RAX',
        smtp: { host: 'mail.internal', port: 2525, secure: true, from: 'alerts@example.com' },
        gateways: { sms: 'http://sms.internal/send', incidentA: 'http://pager.internal/', incidentB: 'http://ops.internal/' },
      },
    });
  });

  it('refuse a concurrency or attempt count out of range', () => {
    expect(() => parse(['--check-concurrency', '0'])).toThrow(CommanderError);
    expect(() => parse(['--check-concurrency', '100000'])).toThrow(CommanderError);
    expect(() => parse(['--delivery-attempts', '0'])).toThrow(CommanderError);
  });

  it('build a runtime whose guard denies the given ranges and nothing else', async () => {
    const monitoring = openMonitoring({ dir: undefined, clock: systemClock });
    const feeds = openFeeds({ dir: undefined, clock: systemClock, region: 'LOCAL' });
    const options = runtimeOptionsOf(parse(['--check-deny', '10.0.0.0/8', '--zones', 'mzord']));
    const runtime = new MonitoringRuntime({ monitoring, engine: undefined as never, feeds, clock: systemClock, logger: collectingLogger(), newTxnId: () => 'txn', options });
    expect(runtime.guard.allows('10.1.2.3')).toBe(false);
    expect(runtime.guard.allows('127.0.0.1')).toBe(true);
    expect(runtime.guard.allows('192.168.1.1')).toBe(true);
    await runtime.stop();
    feeds.close();
    monitoring.close();
  });
});

describe('strata serve boolean flags given without a value', () => {
  it('read as true (the preset goes through the boolean parser)', () => {
    expect(parse(['--smtp-secure']).smtpSecure).toBe(true);
    expect(parse(['--multi-tenant-ingest']).multiTenantIngest).toBe(true);
    expect(parse(['--smtp-secure', 'false']).smtpSecure).toBe(false);
  });
});
