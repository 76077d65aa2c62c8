// Owns the consensus of an alarm across zones and time: consecutiveCount, consistencyLevel and staleness, as a pure fold over verdicts.
import type { AlarmState, ConsistencyLevel } from '../alarm-language/ast.js';
import { CONSECUTIVE_COUNT_MAX } from '../alarm-language/language-limits.js';
import type { CheckDoc } from '../check-rules.js';
import { isRemoteType, REMOTE_PING } from '../check-types.js';
import type { CompiledCriteria } from './criteria-eval.js';

/** consecutiveCount when the criteria do not set it (reference: default 1). */
export const CONSECUTIVE_COUNT_DEFAULT = 1;
/** consecutiveCount of a remote.ping alarm whose criteria do not set it (reference: "ping checks default 3"). */
export const PING_CONSECUTIVE_COUNT_DEFAULT = 3;
/** consistencyLevel when the criteria do not set it (reference: default QUORUM). */
export const CONSISTENCY_LEVEL_DEFAULT: ConsistencyLevel = 'QUORUM';
/** Zone key under which every verdict of a check without polling zones (agent checks) is kept. */
export const PSEUDO_ZONE_ID = '*';
/** A zone's last verdict counts while it is at most this many times consecutiveCount × period old. */
export const STALENESS_PERIODS_FACTOR = 1.5;

/** One zone's verdict on one observation, the input of stepAlarm. */
export interface ZoneVerdict {
  readonly zoneId: string;
  readonly timestampMs: number;
  readonly state: AlarmState;
  readonly status: string;
}

/** What the alarm remembers of one zone: its last verdict and how many verdicts in a row agreed with it. */
export interface ZoneMemory {
  readonly state: AlarmState;
  /** Consecutive verdicts of this state ending with the last one, capped at CONSECUTIVE_COUNT_MAX. */
  readonly run: number;
  readonly timestampMs: number;
  readonly status: string;
}

/** The whole consensus memory of one alarm: plain JSON, so it can be persisted and restored as is. */
export interface AlarmMemory {
  /** The alarm's current state; null before its first state. */
  readonly state: AlarmState | null;
  readonly zones: Readonly<Record<string, ZoneMemory>>;
}

/** How an alarm's verdicts combine: from its criteria's settings and its check. */
export interface ConsensusParams {
  /** 1..CONSECUTIVE_COUNT_MAX agreeing verdicts in a row confirm a zone's state. */
  readonly consecutiveCount: number;
  readonly consistencyLevel: ConsistencyLevel;
  /** The check's polling zones; empty for a check without zones (one pseudo-zone). */
  readonly zones: readonly string[];
  readonly periodMs: number;
}

/** A state change of an alarm, as stepAlarm reports it. */
export interface AlarmTransition {
  readonly state: AlarmState;
  readonly previousState: AlarmState | null;
  /** The status of the verdict that holds the new state. */
  readonly status: string;
  /** The zone of that verdict. */
  readonly zoneId: string;
  /** When the change was decided: the timestamp of the verdict stepAlarm was given. */
  readonly timestampMs: number;
}

/** Severity order, least severe first. */
const SEVERITY: readonly AlarmState[] = ['OK', 'WARNING', 'CRITICAL'];

/** A memory with no zone verdicts, starting from `state` (the persisted state, or null for a new alarm). */
export function emptyMemory(state: AlarmState | null): AlarmMemory {
  return { state, zones: {} };
}

/** The consensus parameters of an alarm: :set values of its criteria, else the defaults; zones and period of its check. */
export function consensusParams(compiled: CompiledCriteria, check: CheckDoc, runZones?: readonly string[]): ConsensusParams {
  const countDefault = check.type === REMOTE_PING ? PING_CONSECUTIVE_COUNT_DEFAULT : CONSECUTIVE_COUNT_DEFAULT;
  // A process that runs only some zones (--zones) sees only their verdicts: quorum is counted over
  // the polling zones it runs, or no QUORUM or ALL alarm could ever change state.
  const polled = check.monitoring_zones_poll ?? [];
  return {
    consecutiveCount: compiled.settings.consecutiveCount ?? countDefault,
    consistencyLevel: compiled.settings.consistencyLevel ?? CONSISTENCY_LEVEL_DEFAULT,
    zones: isRemoteType(check.type) ? polled.filter((zone) => runZones === undefined || runZones.includes(zone)) : [],
    periodMs: check.period * 1000,
  };
}

/** How many fresh confirmed zones must agree: ONE 1, QUORUM floor(n/2)+1, ALL n. */
export function requiredZones(level: ConsistencyLevel, zoneCount: number): number {
  const n = Math.max(1, zoneCount);
  if (level === 'ONE') return 1;
  if (level === 'ALL') return n;
  return Math.floor(n / 2) + 1;
}

/** The zones the memory keeps after `key` took `zone`: only the check's current zones (bounded memory). */
function nextZones(memory: AlarmMemory, key: string, zone: ZoneMemory, params: ConsensusParams): Record<string, ZoneMemory> {
  const zones: Record<string, ZoneMemory> = {};
  const keys = params.zones.length === 0 ? [PSEUDO_ZONE_ID] : params.zones;
  for (const id of keys) {
    const kept = id === key ? zone : Object.hasOwn(memory.zones, id) ? memory.zones[id] : undefined;
    if (kept !== undefined) zones[id] = kept;
  }
  return zones;
}

/** The most severe state at least `required` fresh confirmed zones hold, with the zone to quote; null when none. */
function consensus(zones: Readonly<Record<string, ZoneMemory>>, nowMs: number, key: string, params: ConsensusParams): { state: AlarmState; zoneId: string } | null {
  const count = Math.min(Math.max(1, Math.trunc(params.consecutiveCount)), CONSECUTIVE_COUNT_MAX);
  const windowMs = STALENESS_PERIODS_FACTOR * count * params.periodMs;
  const required = requiredZones(params.consistencyLevel, new Set(params.zones).size);
  for (const state of [...SEVERITY].reverse()) {
    const holders = Object.entries(zones).filter(([, z]) => z.state === state && z.run >= count && nowMs - z.timestampMs <= windowMs);
    if (holders.length < required) continue;
    // Quote the zone whose verdict just arrived when it holds the state, else the most recent holder.
    const own = holders.find(([id]) => id === key);
    const latest = holders.reduce((a, b) => (b[1].timestampMs > a[1].timestampMs ? b : a));
    return { state, zoneId: (own ?? latest)[0] };
  }
  return null;
}

/**
 * Folds one zone verdict into an alarm's memory. A verdict from a zone not among params.zones
 * (when there are any), or not newer than that zone's last, changes nothing. The zone's run grows
 * when the state repeats and restarts at 1 otherwise; the zone is confirmed when its run reaches
 * consecutiveCount and fresh while its last verdict is at most 1.5 × consecutiveCount × period
 * older than this one. The alarm takes the most severe state (CRITICAL, WARNING, OK) held by at
 * least the consistency level's number of fresh confirmed zones; when none qualifies it keeps
 * its state. A transition is returned exactly when the state changes (null → first state too).
 * Pure: the same memory and verdict always give the same result.
 */
export function stepAlarm(memory: AlarmMemory, observation: ZoneVerdict, params: ConsensusParams): { memory: AlarmMemory; transition: AlarmTransition | null } {
  const key = params.zones.length === 0 ? PSEUDO_ZONE_ID : observation.zoneId;
  if (params.zones.length > 0 && !params.zones.includes(key)) return { memory, transition: null };
  const last = Object.hasOwn(memory.zones, key) ? memory.zones[key] : undefined;
  if (last !== undefined && observation.timestampMs <= last.timestampMs) return { memory, transition: null };
  const run = last !== undefined && last.state === observation.state ? Math.min(last.run + 1, CONSECUTIVE_COUNT_MAX) : 1;
  const zone: ZoneMemory = { state: observation.state, run, timestampMs: observation.timestampMs, status: observation.status };
  const zones = nextZones(memory, key, zone, params);
  const decided = consensus(zones, observation.timestampMs, key, params);
  if (decided === null || decided.state === memory.state) return { memory: { state: memory.state, zones }, transition: null };
  const holder = zones[decided.zoneId] as ZoneMemory;
  const transition: AlarmTransition = {
    state: decided.state,
    previousState: memory.state,
    status: holder.status,
    zoneId: params.zones.length === 0 ? observation.zoneId : decided.zoneId,
    timestampMs: observation.timestampMs,
  };
  return { memory: { state: decided.state, zones }, transition };
}
