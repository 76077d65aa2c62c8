// Owns the agent's update checks: asking an endpoint for the newest bundle version and staging a newer one, verified.
import type { Clock } from '../../core/clock.js';
import { isStrataError } from '../../core/errors.js';
import { AGENT_UPDATE_CHECK_INTERVAL_MS } from '../agent-limits.js';
import { compareVersions, isVersion, UPDATE_CHANNEL_DEFAULT } from '../update/update-store.js';
import type { AgentConnection } from './agent-connection.js';
import type { AgentLogger } from './agent-deps.js';
import { fetchAndStageUpdate } from './update-client.js';

/** What updates need: the pinned signing key and where to stage. */
export interface AgentUpdateSettings {
  /** PEM of the update-signing public key; bundles that do not verify with it are never staged. */
  readonly publicKeyPem: string;
  /** The state directory (bundles are staged under `<stateDir>/updates/<version>/`). */
  readonly stateDir: string;
  /** Channel to download from; undefined: the one the endpoint names in its hello result. */
  readonly channel?: string;
}

/** What the updater needs. */
export interface AgentUpdaterDeps {
  readonly settings: AgentUpdateSettings;
  /** PEM of the root the endpoints' certificates chain to (downloads trust it alone). */
  readonly ca: string;
  /** The newest version the agent has: the one it runs, or a newer one staged earlier (only newer ones are fetched). */
  readonly newestVersion: string;
  readonly clock: Clock;
  readonly logger: AgentLogger;
}

function reasonOf(error: unknown): unknown {
  return isStrataError(error) ? (error.details.reason ?? error.details.message ?? error.message) : undefined;
}

/**
 * Checks one endpoint for a newer bundle (bundle_upgrade.get_version) and stages it with update-client.ts, which
 * verifies the signature with the pinned key first. One check runs at a time; unforced checks (after a hello) run at
 * most every AGENT_UPDATE_CHECK_INTERVAL_MS. Staged bundles are not run: the agent keeps announcing the
 * bundle it runs, and installing a staged bundle (unpack, restart) is the host's package manager's job.
 */
export class AgentUpdater {
  private version: string;
  private checking = false;
  private lastCheckMs: number | undefined;
  private endpointChannel: string = UPDATE_CHANNEL_DEFAULT;

  constructor(private readonly deps: AgentUpdaterDeps) {
    this.version = deps.newestVersion;
  }

  /** The newest version staged (by this process or an earlier one), else the one it runs. */
  get stagedVersion(): string {
    return this.version;
  }

  /** Asks `connection` for the newest version and stages it when newer; failures are logged, never thrown. */
  async check(connection: AgentConnection, force: boolean, channel?: string): Promise<void> {
    if (channel !== undefined) this.endpointChannel = channel;
    const nowMs = this.deps.clock.now();
    if (this.checking || (!force && this.lastCheckMs !== undefined && nowMs - this.lastCheckMs < AGENT_UPDATE_CHECK_INTERVAL_MS)) return;
    this.checking = true;
    this.lastCheckMs = nowMs;
    try {
      await this.checkOnce(connection);
    } catch (error) {
      this.deps.logger.warn({ endpoint: connection.name, code: isStrataError(error) ? error.code : 'unknown', reason: reasonOf(error) }, 'agent update refused');
    } finally {
      this.checking = false;
    }
  }

  private async checkOnce(connection: AgentConnection): Promise<void> {
    const answer = (await connection.request('bundle_upgrade.get_version', {})) as { version?: unknown } | null;
    const version = typeof answer === 'object' && answer !== null ? answer.version : undefined;
    if (version === null || version === undefined) return;
    if (typeof version !== 'string' || !isVersion(version)) {
      this.deps.logger.warn({ endpoint: connection.name }, 'endpoint named an update version that is not a version');
      return;
    }
    if (!isVersion(this.version) || compareVersions(version, this.version) <= 0) return;
    const { host, port } = connection.endpoint;
    const path = await fetchAndStageUpdate({
      source: { host, port, ca: this.deps.ca, ...(connection.servername !== undefined ? { servername: connection.servername } : {}) },
      channel: this.deps.settings.channel ?? this.endpointChannel,
      version,
      publicKeyPem: this.deps.settings.publicKeyPem,
      stateDir: this.deps.settings.stateDir,
    });
    this.deps.logger.info({ from: this.version, to: version, path }, 'agent update staged');
    this.version = version;
  }
}
