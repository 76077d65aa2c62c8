// Owns the endpoint's handshaken sessions: by tenant, agent and zone, counted per token and in all, an older one replaced by a newer of the same agent and zone, each agent's cached checks and schedule, and check_schedule.changed pushes (one per agent) when monitoring changes touch them.
import { StrataError } from '../../core/errors.js';
import type { MonitoringChange } from '../../monitoring/change-feed.js';
import { loggableError } from '../../monitoring/loggable-error.js';
import type { ScheduleResult } from '../protocol/messages.js';
import type { AgentBackend, AgentCheck, AgentPrincipal, LiveConnectionFields } from './agent-backend.js';
import { scheduleOf } from './agent-methods.js';

/** What the hub needs of one session. */
export interface HubMember {
  /** Closes the session; it calls remove() (at once, or when its socket closes). Never throws. */
  close(reason: string): void;
  /** Sends check_schedule.changed to the agent; resolves true once acknowledged, false when not (the member logs why). Never rejects. */
  scheduleChanged(): Promise<boolean>;
  /** Sends a request to the agent and resolves with its result; rejects as RpcPeer.request does (AGENT_CONNECTION_CLOSED when the session is gone). */
  request(method: string, params: unknown, timeoutMs: number): Promise<unknown>;
}

/** The logger the hub uses (a pino Logger fits). */
export interface HubLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

/** What the hub is built from. */
export interface AgentHubDeps {
  readonly backend: AgentBackend;
  readonly logger: HubLogger;
  /** Most sessions in all (AGENT_CONNECTIONS_MAX). */
  readonly connectionsMax: number;
  /** Most sessions of one agent token (AGENT_TOKEN_CONNECTIONS_MAX). */
  readonly tokenConnectionsMax: number;
}

/** One connected agent: its sessions by zone and what its schedule is made of. */
interface AgentEntry {
  readonly tenant: string;
  readonly agentId: string;
  readonly members: Map<string, HubMember>;
  entityIds: readonly string[];
  checks: ReadonlyMap<string, AgentCheck>;
  /** What check_schedule.get answers, built when the checks are (re)loaded. */
  schedule: ScheduleResult;
  /** The schedule as JSON: a refresh pushes check_schedule.changed only when it differs. */
  fingerprint: string;
  /** A push waits for its answer; another is due after it (changes meanwhile coalesce into one). */
  pushing: boolean;
  pushAgain: boolean;
}

/** One admitted session. */
interface Registration {
  readonly entry: AgentEntry;
  readonly zoneId: string;
  readonly tokenKey: string;
  readonly connectionId: string;
}

/** A map key of two names; NUL appears in neither tenants, agent ids, entity ids nor token ids. */
function pairKey(a: string, b: string): string {
  return `${a}\u0000${b}`;
}

/**
 * The registry of live agent sessions. Every map is bounded by the admitted sessions, which
 * admit() keeps within `connectionsMax`; the entity index by sessions × AGENT_ENTITIES_MAX.
 */
export class AgentHub {
  private readonly registrations = new Map<HubMember, Registration>();
  private readonly agents = new Map<string, AgentEntry>();
  private readonly tokens = new Map<string, number>();
  /** Connected agents by the entities that name them (tenant + entity id → agent keys). */
  private readonly byEntity = new Map<string, Set<string>>();
  private unsubscribe: (() => void) | undefined;

  constructor(private readonly deps: AgentHubDeps) {}

  /** Handshaken sessions held now. */
  get size(): number {
    return this.registrations.size;
  }

  /** Follows the backend's committed changes. */
  start(): void {
    this.unsubscribe ??= this.deps.backend.subscribe((change) => this.onChange(change));
  }

  /** Stops following changes and closes every session (each reported disconnected). */
  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const member of [...this.registrations.keys()]) {
      member.close('the endpoint is stopping');
      this.remove(member);
    }
  }

  /**
   * Admits a handshaken session: refuses it over a limit (AGENT_CONNECTIONS_OVER_LIMIT), loads the
   * agent's checks when it is its first session, registers it with the backend and then here, and
   * only then closes an older session of the same agent and zone (which does not count against the
   * limits): a refusal by the backend leaves everything as it was, the older session included.
   * Returns the connection id.
   */
  admit(member: HubMember, principal: AgentPrincipal, fields: LiveConnectionFields): string {
    const { tenant } = principal;
    const agentKey = pairKey(tenant, fields.agentId);
    const tokenKey = pairKey(tenant, principal.tokenId);
    const older = this.agents.get(agentKey)?.members.get(fields.zoneId);
    const olderToken = older === undefined ? undefined : this.registrations.get(older)?.tokenKey;
    const others = this.registrations.size - (older === undefined ? 0 : 1);
    if (others >= this.deps.connectionsMax) throw overLimit('connections', this.deps.connectionsMax);
    const tokenOthers = (this.tokens.get(tokenKey) ?? 0) - (olderToken === tokenKey ? 1 : 0);
    if (tokenOthers >= this.deps.tokenConnectionsMax) throw overLimit('token_connections', this.deps.tokenConnectionsMax);
    const entry = this.agents.get(agentKey) ?? this.loadEntry(tenant, fields.agentId);
    const connectionId = this.deps.backend.connected(tenant, fields);
    if (entry.members.size === 0) {
      this.agents.set(agentKey, entry);
      this.index(entry, entry.entityIds);
    }
    entry.members.set(fields.zoneId, member);
    this.registrations.set(member, { entry, zoneId: fields.zoneId, tokenKey, connectionId });
    this.tokens.set(tokenKey, (this.tokens.get(tokenKey) ?? 0) + 1);
    if (older !== undefined) {
      // remove() leaves the entry's zone slot alone: it holds the new session now.
      older.close('replaced by a newer connection of the same agent to the same zone');
      this.remove(older);
    }
    return connectionId;
  }

  /** Forgets a session and reports it disconnected; does nothing for one not admitted or already removed. */
  remove(member: HubMember): void {
    const registration = this.registrations.get(member);
    if (registration === undefined) return;
    this.registrations.delete(member);
    const { entry, tokenKey, connectionId } = registration;
    const count = (this.tokens.get(tokenKey) ?? 1) - 1;
    if (count > 0) this.tokens.set(tokenKey, count);
    else this.tokens.delete(tokenKey);
    if (entry.members.get(registration.zoneId) === member) entry.members.delete(registration.zoneId);
    if (entry.members.size === 0) {
      this.agents.delete(pairKey(entry.tenant, entry.agentId));
      this.unindex(entry, entry.entityIds);
    }
    try {
      this.deps.backend.disconnected(entry.tenant, entry.agentId, connectionId);
    } catch (error) {
      this.deps.logger.error({ tenant: entry.tenant, agentId: entry.agentId, connectionId, error: loggableError(error) }, 'agent disconnect not recorded');
    }
  }

  /** The registered sessions of a tenant's agent, oldest zone first; none when it is not connected. */
  membersOf(tenant: string, agentId: string): HubMember[] {
    const entry = this.agents.get(pairKey(tenant, agentId));
    return entry === undefined ? [] : [...entry.members.values()].filter((member) => this.registrations.has(member));
  }

  /** The first entity bound to the session's agent, or null. */
  entityOf(member: HubMember): string | null {
    return this.registration(member).entry.entityIds[0] ?? null;
  }

  /** The cached agent check of the session's agent with this id. */
  checkOf(member: HubMember, checkId: string): AgentCheck | undefined {
    return this.registration(member).entry.checks.get(checkId);
  }

  /** The session's agent's schedule as cached: every committed change of its entities and checks reloads it. */
  schedule(member: HubMember): ScheduleResult {
    return this.registration(member).entry.schedule;
  }

  private registration(member: HubMember): Registration {
    const registration = this.registrations.get(member);
    if (registration === undefined) throw new StrataError('AGENT_CONNECTION_CLOSED', 'the agent session is no longer registered');
    return registration;
  }

  /** A new entry with the agent's entities and checks loaded (not yet registered). */
  private loadEntry(tenant: string, agentId: string): AgentEntry {
    const entry: AgentEntry = { tenant, agentId, members: new Map(), entityIds: [], checks: new Map(), schedule: { checks: [] }, fingerprint: '', pushing: false, pushAgain: false };
    this.load(entry);
    return entry;
  }

  private load(entry: AgentEntry): void {
    const { backend } = this.deps;
    entry.entityIds = backend.entitiesOf(entry.tenant, entry.agentId);
    const checks = backend.checksOf(entry.tenant, entry.entityIds);
    entry.checks = new Map(checks.map((check) => [check.check.id, check]));
    entry.schedule = scheduleOf(checks);
    entry.fingerprint = JSON.stringify(entry.schedule);
  }

  /** Reloads an agent's entities and checks; true when its schedule changed. */
  private refresh(entry: AgentEntry): boolean {
    const before = entry.fingerprint;
    const entities = entry.entityIds;
    this.load(entry);
    if (this.agents.get(pairKey(entry.tenant, entry.agentId)) === entry) {
      this.unindex(entry, entities);
      this.index(entry, entry.entityIds);
    }
    return entry.fingerprint !== before;
  }

  /**
   * A committed change: a check change of an entity bound to a connected agent, or an entity change
   * that binds or unbinds one, reloads that agent's checks and, when its schedule changed, tells
   * the agent through one of its sessions. Never throws (the change feed drops throws; we log them).
   */
  private onChange(change: MonitoringChange): void {
    if (change.kind === 'alarm' || this.agents.size === 0) return;
    try {
      const affected = new Set(this.byEntity.get(pairKey(change.tenant, change.entityId)));
      if (change.kind === 'entity' && change.op !== 'delete') {
        const agentId = this.deps.backend.agentOfEntity(change.tenant, change.entityId);
        if (typeof agentId === 'string' && this.agents.has(pairKey(change.tenant, agentId))) affected.add(pairKey(change.tenant, agentId));
      }
      for (const key of affected) {
        const entry = this.agents.get(key);
        if (entry !== undefined && this.refresh(entry)) this.push(entry);
      }
    } catch (error) {
      this.deps.logger.error({ tenant: change.tenant, kind: change.kind, id: change.id, error: loggableError(error) }, 'agent schedule refresh failed');
    }
  }

  /**
   * Sends check_schedule.changed to one session of the agent (the agent fetches its one schedule
   * once), another only when that one does not acknowledge it. One push per agent waits for its
   * answer at a time: changes meanwhile make one more push after it.
   */
  private push(entry: AgentEntry): void {
    if (entry.pushing) {
      entry.pushAgain = true;
      return;
    }
    entry.pushing = true;
    void this.pushToOne(entry).then(() => {
      entry.pushing = false;
      if (!entry.pushAgain) return;
      entry.pushAgain = false;
      if (this.agents.get(pairKey(entry.tenant, entry.agentId)) === entry) this.push(entry);
    });
  }

  /** Tries the agent's sessions in turn until one acknowledges; never rejects. */
  private async pushToOne(entry: AgentEntry): Promise<void> {
    let tried = 0;
    for (const member of [...entry.members.values()]) {
      if (!this.registrations.has(member)) continue;
      tried++;
      let acknowledged = false;
      try {
        acknowledged = await member.scheduleChanged();
      } catch {
        // A member's contract is to log and resolve false; a throw is taken as false all the same.
      }
      if (acknowledged) return;
    }
    if (tried > 0) this.deps.logger.warn({ tenant: entry.tenant, agentId: entry.agentId, tried }, 'check_schedule.changed reached no session of the agent');
  }

  private index(entry: AgentEntry, entityIds: readonly string[]): void {
    const agentKey = pairKey(entry.tenant, entry.agentId);
    for (const entityId of entityIds) {
      const key = pairKey(entry.tenant, entityId);
      const agents = this.byEntity.get(key) ?? new Set<string>();
      agents.add(agentKey);
      this.byEntity.set(key, agents);
    }
  }

  private unindex(entry: AgentEntry, entityIds: readonly string[]): void {
    const agentKey = pairKey(entry.tenant, entry.agentId);
    for (const entityId of entityIds) {
      const key = pairKey(entry.tenant, entityId);
      const agents = this.byEntity.get(key);
      agents?.delete(agentKey);
      if (agents?.size === 0) this.byEntity.delete(key);
    }
  }
}

function overLimit(limit: 'connections' | 'token_connections', max: number): StrataError {
  const what = limit === 'connections' ? 'the endpoint holds' : 'this agent token holds';
  return new StrataError('AGENT_CONNECTIONS_OVER_LIMIT', `${what} the most agent connections it may (${max})`, { limit, max });
}
