// Owns `strata agent`: reads flags and the reference-format config file, then runs the agent until SIGTERM or SIGINT.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { Command, Option } from 'commander';
import pino from 'pino';
import { configError } from '../core/config-error.js';
import { systemClock } from '../core/clock.js';
import { formatEndpoint, loadAgentConfigFile, resolveAgentConfig, type AgentConfig, type AgentFlags } from '../agent/client/agent-config.js';
import { systemScheduler } from '../agent/client/agent-deps.js';
import { AgentFleet } from '../agent/client/agent-fleet.js';
import { ensureStateDir, loadOrCreateGuid, newestStagedVersion } from '../agent/client/agent-state.js';
import { collectorFor } from '../agent/collectors/collector-registry.js';
import { compareVersions, isVersion } from '../agent/update/update-store.js';
import { packageRoot } from '../storage/package-root.js';
import { printError } from './print-error.js';

/** State directory when neither --state-dir nor state_dir names one. */
const STATE_DIR_DEFAULT = './agent-state';
const PEM_CERTIFICATE = '-----BEGIN CERTIFICATE-----';

interface AgentCommandOptions extends AgentFlags {
  readonly config?: string;
  readonly logLevel: string;
}

function readPem(path: string, option: string, marker: string): string {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw configError(option, 'a readable PEM file', `${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  if (!text.includes(marker)) throw configError(option, `a PEM file holding ${marker.replace(/-/g, '').toLowerCase()}`, path);
  return text;
}

/** The newest version the agent has: a staged update newer than the process, else the process's own. */
function newestVersionOf(stateDir: string, processVersion: string): string {
  const staged = newestStagedVersion(stateDir);
  if (staged === undefined || !isVersion(processVersion)) return processVersion;
  return compareVersions(staged, processVersion) > 0 ? staged : processVersion;
}

function startAgent(config: AgentConfig, logLevel: string, ignored: readonly string[]): void {
  // Logs go to stderr as JSON lines; stdout carries only the lines scripts read.
  const logger = pino({ level: logLevel }, pino.destination({ dest: 2, sync: true }));
  if (ignored.length > 0) logger.warn({ keys: ignored }, 'configuration keys of the reference agent that Strata ignores');
  const ca = readPem(config.caPath, '--ca (certificate_path)', PEM_CERTIFICATE);
  const publicKeyPem = config.updateKeyPath === undefined ? undefined : readPem(config.updateKeyPath, '--update-key (update_public_key)', '-----BEGIN PUBLIC KEY-----');
  ensureStateDir(config.stateDir);
  const guid = config.guid ?? loadOrCreateGuid(config.stateDir);
  const { version: processVersion } = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version: string };
  const fleet = new AgentFleet({
    endpoints: config.endpoints,
    ca,
    token: config.token,
    agentId: config.agentId,
    guid,
    processVersion,
    bundleVersion: processVersion,
    stagedVersion: newestVersionOf(config.stateDir, processVersion),
    ...(publicKeyPem !== undefined
      ? { update: { publicKeyPem, stateDir: config.stateDir, ...(config.updateChannel !== undefined ? { channel: config.updateChannel } : {}) } }
      : {}),
    collectorFor: (type) => collectorFor(type),
    clock: systemClock,
    scheduler: systemScheduler,
    random: Math.random,
    logger,
    // Scripts wait for these lines.
    onConnected: (endpoint, index) => process.stdout.write(`agent connected to ${formatEndpoint(endpoint)} (zone connection ${index})\n`),
  });
  logger.info({ agentId: config.agentId, guid, endpoints: config.endpoints.map(formatEndpoint), stateDir: config.stateDir, updates: publicKeyPem !== undefined }, 'agent starting');
  fleet.start();
  let stopping = false;
  const stop = (signal: NodeJS.Signals): void => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'agent stopping');
    fleet.stop().then(
      () => process.exit(0),
      () => process.exit(1),
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

/** The `strata agent` command: runs the monitoring agent (collects agent checks' metrics and posts them to the endpoints). */
export function agentCommand(): Command {
  return new Command('agent')
    .description('run the monitoring agent: connect to the agent endpoints over TLS, run the agent checks of this host, post their metrics')
    .option('--config <file>', 'configuration file in the reference agent format (monitoring_token, monitoring_id, monitoring_endpoints, certificate_path, monitoring_guid, state_dir, update_public_key, update_channel); flags win over it')
    .addOption(new Option('--token <token>', 'agent token (monitoring_token)').env('STRATA_AGENT_TOKEN'))
    .option('--id <agentId>', 'agent id (monitoring_id; default: this host name)')
    .option('--endpoints <list>', 'endpoints as host:port,host:port (monitoring_endpoints)')
    .option('--ca <file>', 'PEM file of the root certificate to trust, and nothing else (certificate_path; `strata agent-ca export` prints it)')
    .option('--state-dir <dir>', `state directory: the guid, staged updates (state_dir; default ${STATE_DIR_DEFAULT})`)
    .option('--update-key <file>', 'PEM public key that update bundles must be signed with (update_public_key); updates are off without it')
    .option('--update-channel <channel>', 'update channel (update_channel; default: the one the endpoint names)')
    .addOption(new Option('--log-level <level>', 'pino log level').env('STRATA_LOG_LEVEL').choices(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'))
    .action((options: AgentCommandOptions) => {
      try {
        const file = options.config === undefined ? undefined : loadAgentConfigFile(options.config);
        const config = resolveAgentConfig(options, file, { agentId: hostname(), stateDir: STATE_DIR_DEFAULT });
        startAgent(config, options.logLevel, file?.ignored ?? []);
      } catch (error) {
        printError(error);
        process.exit(process.exitCode ?? 1);
      }
    });
}
