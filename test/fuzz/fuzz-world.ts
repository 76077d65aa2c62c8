// Owns the server the fuzz suite talks to: users and tokens of each role, seeded objects every path parameter may name, and a fingerprint of the stored state.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { ManualClock } from '../../src/core/clock.js';
import { FEEDS } from '../../src/feeds/feed-catalog.js';
import { KEYS, startHarness, type Harness } from '../http/harness.js';

/** When the fuzz server's manual clock starts; it moves only by one millisecond per write request, so runs replay. */
export const FUZZ_NOW_MS = Date.UTC(2026, 0, 1, 12);
/** The metric the seeded ingest wrote, which views and plots can name. */
export const SEEDED_METRIC = 'fuzz.seed.metric';
/** The check metric the plot routes name. */
const SEEDED_CHECK_METRIC = 'available';

/**
 * Users beyond the harness's three, whose names and tenants are reserved JavaScript names: valid
 * by the identity rules (letters, digits, `._-`), so requests of theirs reach every store keyed by
 * tenant or username.
 */
export const RESERVED_USERS = {
  // Computed: a plain `__proto__:` in a literal would set the prototype instead of a property.
  ['__proto__']: { tenant: '__proto__', apiKey: 'proto-api-key-0123456789' },
  constructor: { tenant: 'constructor', apiKey: 'constructor-api-key-0123456789' },
} as const;

/** A user the world has: the harness's (alice, olga, bob) or a reserved one. */
export type User = keyof typeof KEYS | keyof typeof RESERVED_USERS;
const USERS: readonly User[] = ['alice', 'olga', 'bob', '__proto__', 'constructor'];

/** Who a request is sent as: a user's token, junk, nothing, or basic credentials. */
export type Caller = User | 'none' | 'junk-token' | 'basic-alice' | 'basic-proto' | 'basic-junk';
export const CALLERS: readonly Caller[] = [...USERS, 'none', 'junk-token', 'basic-alice', 'basic-proto', 'basic-junk'];

/** The tenant a caller's requests name when the URL's tenant is its valid value. */
function tenantOfCaller(caller: Caller): string {
  if (caller === 'bob') return 't2';
  if (caller === '__proto__' || caller === 'basic-proto') return '__proto__';
  if (caller === 'constructor') return 'constructor';
  return 't1';
}

function apiKeyOf(user: User): string {
  return user === '__proto__' || user === 'constructor' ? RESERVED_USERS[user].apiKey : KEYS[user];
}

function basic(username: string, apiKey: string): string {
  return `Basic ${Buffer.from(`${username}:${apiKey}`).toString('base64')}`;
}

/** Ids of the objects seeded for tenant t1 (monitoring objects, an agent connection, a domain, a feed entry per feed). */
interface Seeds {
  entity: string;
  check: string;
  alarm: string;
  notification: string;
  plan: string;
  agentToken: string;
  agent: string;
  connection: string;
  domain: string;
  /** Entry id per feed path. */
  entries: Map<string, string>;
}

/** Every tenant a caller may name, so every one's state is fingerprinted. */
const TENANTS = ['t1', 't2', '__proto__', 'constructor'] as const;
/** Entities whose checks and alarms the fingerprint lists (the seeded one is always first). */
const ENTITIES_WITH_CHILDREN_MAX = 10;

const DNS_EXAMPLE = resolve(import.meta.dirname, '../../examples/dns-domains.json');

/** The harness plus what the fuzz properties name: tokens, seeded ids, and the state fingerprint. */
export class FuzzWorld {
  private readonly tokens = new Map<User | 'victim', string>();
  private seeds: Seeds | undefined;

  private constructor(
    readonly harness: Harness,
    readonly clock: ManualClock,
  ) {}

  /** Starts a server with the harness users and seeds one of every object of tenant t1. */
  static async open(): Promise<FuzzWorld> {
    const clock = new ManualClock(FUZZ_NOW_MS);
    const world = new FuzzWorld(await startHarness({ clock }), clock);
    for (const [username, { tenant, apiKey }] of Object.entries(RESERVED_USERS)) world.harness.identity.createUser({ username, tenant, role: 'admin', apiKey });
    world.refreshTokens();
    await world.seed();
    return world;
  }

  get app(): Harness['app'] {
    return this.harness.app;
  }

  /** Issues tokens again for any that were revoked (a fuzzed DELETE /v2.0/tokens may succeed). */
  refreshTokens(): void {
    for (const user of [...USERS, 'victim'] as const) {
      const current = this.tokens.get(user);
      if (current !== undefined && this.harness.identity.validate(current) !== undefined) continue;
      const name: User = user === 'victim' ? 'olga' : user;
      this.tokens.set(user, this.harness.identity.authenticate(name, apiKeyOf(name)).token);
    }
  }

  /** The credentials headers of a caller. */
  credentials(caller: Caller, junk: string): Record<string, string> {
    switch (caller) {
      case 'none':
        return {};
      case 'junk-token':
        return { 'x-auth-token': junk === '' ? 'x' : junk };
      case 'basic-alice':
        return { authorization: basic('alice', KEYS.alice) };
      case 'basic-proto':
        return { authorization: basic('__proto__', RESERVED_USERS.__proto__.apiKey) };
      case 'basic-junk':
        return { authorization: basic(junk.includes(':') ? junk : 'alice', junk) };
      default:
        return { 'x-auth-token': this.tokens.get(caller) as string };
    }
  }

  private get monitoring() {
    return this.app.strata.monitoring;
  }

  private async seed(): Promise<void> {
    const m = this.monitoring;
    const write = await this.app.strata.store.write([{ tenant: 't1', metric: SEEDED_METRIC, timestamp: FUZZ_NOW_MS - 60_000, value: 1.5, unit: 'percent' }]);
    if (write.accepted !== 1) throw new Error(`seed metric refused: ${JSON.stringify(write)}`);
    this.app.strata.dns.importDocument('t1', JSON.parse(readFileSync(DNS_EXAMPLE, 'utf8')));
    const domain = this.app.strata.dns.domains('t1', 'example.com', { limit: 10, offset: 0 }).items[0];
    const agent = 'fuzz-agent';
    const connection = m.agents.connect('t1', { agentId: agent, guid: 'g-1', processVersion: '1', bundleVersion: '1', agentIp: '192.0.2.5', zoneId: 'mzdfw' });
    const entries = new Map<string, string>();
    for (const feed of FEEDS) entries.set(feed.path, this.app.strata.feeds.publish('t1', feed, { title: 'seed', categories: ['a.b'] }).id);
    this.seeds = { entity: '', check: '', alarm: '', notification: '', plan: '', agentToken: '', agent, connection, domain: String(domain?.id ?? 1), entries };
    this.ensureSeeds();
  }

  /** Recreates any seeded monitoring object a fuzzed request deleted, so later requests can still name one. */
  ensureSeeds(): void {
    const s = this.seeds as Seeds;
    const m = this.monitoring;
    const exists = (find: () => unknown): boolean => {
      try {
        find();
        return true;
      } catch {
        return false;
      }
    };
    if (s.entity === '' || !exists(() => m.entities.entity('t1', s.entity))) {
      s.entity = m.entities.createEntity('t1', { label: 'fuzz-web', ip_addresses: { web: '192.0.2.10' } } as never);
      s.check = '';
      s.alarm = '';
    }
    if (s.notification === '' || !exists(() => m.notifications.notification('t1', s.notification))) {
      s.notification = m.notifications.createNotification('t1', { label: 'ops', type: 'email', details: { address: 'ops@example.com' } } as never);
    }
    if (s.plan === '' || !exists(() => m.notifications.plan('t1', s.plan))) {
      s.plan = m.notifications.createPlan('t1', { label: 'team', critical_state: [s.notification] } as never);
    }
    if (s.check === '' || !exists(() => m.entities.check('t1', s.entity, s.check))) {
      const details = { url: 'https://example.com/', method: 'GET' };
      s.check = m.entities.createCheck('t1', s.entity, { label: 'site', type: 'remote.http', details, monitoring_zones_poll: ['mzdfw'], target_alias: 'web', period: 60, timeout: 30 } as never);
    }
    if (s.alarm === '' || !exists(() => m.entities.alarm('t1', s.entity, s.alarm))) {
      s.alarm = m.entities.createAlarm('t1', s.entity, { check_id: s.check, notification_plan_id: s.plan, criteria: 'return new AlarmStatus(OK);' } as never);
    }
    if (s.agentToken === '' || !exists(() => m.agents.token('t1', s.agentToken))) {
      s.agentToken = m.agents.createToken('t1', { label: 'host-1' } as never);
    }
  }

  /** The valid value of a path parameter of `pattern` for `caller`, so a request can reach past the router, auth and the 404s. */
  known(pattern: string, param: string, caller: Caller): string {
    const s = this.seeds as Seeds;
    switch (param) {
      case 'tenant':
        return tenantOfCaller(caller);
      case 'entityId':
        return s.entity;
      case 'checkId':
        return s.check;
      case 'alarmId':
        return s.alarm;
      case 'notificationId':
        return s.notification;
      case 'planId':
        return s.plan;
      case 'tokenId':
        return pattern.startsWith('/v2.0/') ? (this.tokens.get('victim') as string) : s.agentToken;
      case 'agentId':
        return s.agent;
      case 'connectionId':
        return s.connection;
      case 'typeId':
        return 'email';
      case 'zoneId':
        return 'mzdfw';
      case 'domainId':
        return s.domain;
      case 'metricName':
        return pattern.startsWith('/monitoring/') ? SEEDED_CHECK_METRIC : SEEDED_METRIC;
      case 'entryId':
        return [...s.entries].find(([path]) => pattern.includes(`/${path}/`))?.[1] ?? 'urn:uuid:00000000-0000-0000-0000-000000000000';
      default:
        // A parameter this suite does not know yet is fuzzed with hostile values only.
        return 'unknown';
    }
  }

  /** Ids of the seeded objects (bodies of alarms and plans refer to them). */
  get ids(): Readonly<Seeds> {
    return this.seeds as Seeds;
  }

  /**
   * A fingerprint of everything a refused request must leave as it was: monitoring objects of every
   * tenant the callers have (ids and update times; children of the first entities), metric names,
   * accepted points, feed entries, and whether each token still works.
   */
  async fingerprint(): Promise<string> {
    const m = this.monitoring;
    const strata = this.app.strata;
    const page = { limit: 1000 };
    const stamp = (docs: readonly { id: string; updatedMs: number }[]): string => docs.map((d) => `${d.id}@${d.updatedMs}`).join(' ');
    const parts: string[] = [`points=${strata.store.stats().pointsAccepted}`];
    for (const tenant of TENANTS) {
      const entities = m.entities.listEntities(tenant, page).values;
      parts.push(`${tenant} entities ${stamp(entities)}`);
      for (const entity of entities.slice(0, ENTITIES_WITH_CHILDREN_MAX)) {
        parts.push(`checks ${stamp(m.entities.listChecks(tenant, entity.id, page).values)} alarms ${stamp(m.entities.listAlarms(tenant, entity.id, page).values)}`);
      }
      parts.push(`notifications ${stamp(m.notifications.listNotifications(tenant, page).values)} plans ${stamp(m.notifications.listPlans(tenant, page).values)}`);
      parts.push(`agent tokens ${m.agents.listTokens(tenant, page).values.map((t) => `${t.id}@${t.updatedMs}`).join(' ')}`);
      parts.push(`metrics ${(await strata.store.listMetrics(tenant, { limit: 1000 })).metrics.map((metric) => `${metric.name}:${metric.unit}`).join(' ')}`);
      for (const feed of FEEDS) {
        parts.push(`${feed.path} ${strata.feeds.page(tenant, feed, { limit: 1000, marker: undefined, direction: 'forward' }).entries.map((e) => e.id).join(' ')}`);
      }
    }
    parts.push(`tokens ${[...this.tokens.values()].map((token) => this.harness.identity.validate(token) !== undefined).join(' ')}`);
    return parts.join('\n');
  }

  async close(): Promise<void> {
    await this.harness.close();
  }
}
