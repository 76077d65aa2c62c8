// Owns the replay fold: observations in replay order through the runtime's own evaluator and consensus, from an empty memory, into state changes, in bounded steps.
import { setImmediate as nextTurn } from 'node:timers/promises';
import { emptyMemory, PSEUDO_ZONE_ID, stepAlarm, type AlarmMemory, type AlarmTransition, type ConsensusParams } from '../alarms/alarm-consensus.js';
import { evaluateCriteria, type CompiledCriteria } from '../alarms/criteria-eval.js';
import type { CheckResult } from '../check-result.js';
import { BACKTEST_STEP_OBSERVATIONS } from '../monitoring-limits.js';

/**
 * One alarm replayed: each observation is evaluated against the criteria with the same zone's
 * previous observation (one key for every zone of an agent check, as the runtime keeps it), and
 * the verdict steps the consensus memory exactly as AlarmRuntime.observe does. The memory starts
 * empty (state null): the replay knows nothing of the alarm's state before the range, like a new
 * alarm, so its first change is from null.
 */
export class AlarmReplay {
  private memory: AlarmMemory = emptyMemory(null);
  private readonly previous = new Map<string, CheckResult>();
  private count = 0;

  constructor(
    private readonly compiled: CompiledCriteria,
    private readonly params: ConsensusParams,
    /** True for a remote check: previous() and rate() read the same zone's last observation; else every zone's. */
    private readonly remote: boolean,
  ) {}

  /** Folds one observation (observations must come in replay order); the state change it makes, or null. */
  observe(result: CheckResult): AlarmTransition | null {
    this.count += 1;
    const key = this.remote ? result.monitoringZoneId : PSEUDO_ZONE_ID;
    const previous = this.previous.get(key) ?? null;
    this.previous.set(key, result);
    const verdict = evaluateCriteria(this.compiled, result, previous);
    const step = stepAlarm(this.memory, { zoneId: result.monitoringZoneId, timestampMs: result.timestampMs, state: verdict.state, status: verdict.status }, this.params);
    this.memory = step.memory;
    return step.transition;
  }

  /** Observations folded so far. */
  observations(): number {
    return this.count;
  }
}

/**
 * Folds every observation of `slices` into `replay`, BACKTEST_STEP_OBSERVATIONS at a time with a
 * turn of the event loop between steps, calling `onChange` for each state change with the
 * observation that made it.
 */
export async function replayInSteps(
  replay: AlarmReplay,
  slices: AsyncIterable<readonly CheckResult[]>,
  onChange: (transition: AlarmTransition, result: CheckResult) => void,
  stepObservations: number = BACKTEST_STEP_OBSERVATIONS,
): Promise<void> {
  for await (const results of slices) {
    for (let start = 0; start < results.length; start += stepObservations) {
      const end = Math.min(results.length, start + stepObservations);
      for (let i = start; i < end; i++) {
        const result = results[i] as CheckResult;
        const transition = replay.observe(result);
        if (transition !== null) onChange(transition, result);
      }
      await nextTurn();
    }
  }
}
