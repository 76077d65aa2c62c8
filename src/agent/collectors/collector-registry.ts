// Owns choosing the collector for an agent check type.
import { safely, unavailable, type Collected, type Collector, type CollectorOptions } from './collector.js';
import { CpuCollector } from './cpu-collector.js';
import { DiskCollector } from './disk-collector.js';
import { FilesystemCollector } from './filesystem-collector.js';
import { LoadAverageCollector } from './load-average-collector.js';
import { MemoryCollector } from './memory-collector.js';
import { NetworkCollector } from './network-collector.js';

/** The collector types, re-exported for the agent's check loop (the contract names them beside collectorFor). */
export type { Collected, Collector, CollectorOptions } from './collector.js';

/** The agent check types this agent gathers metrics for. */
export const COLLECTED_CHECK_TYPES = ['agent.cpu', 'agent.memory', 'agent.load_average', 'agent.filesystem', 'agent.disk', 'agent.network'] as const;

function unsupported(type: string): Collector {
  const result: Collected = unavailable(`check type ${type} is not supported by this agent`);
  return { collect: () => safely(async () => result) };
}

/**
 * A new collector for an agent check type (agent.cpu, agent.memory, agent.load_average, agent.filesystem,
 * agent.disk, agent.network); other types get one that reports unavailable "check type <t> is not supported by this agent".
 * Each call makes a new instance: give each check its own, since cpu and disk keep their previous sample.
 */
export function collectorFor(type: string, options: CollectorOptions = {}): Collector {
  switch (type) {
    case 'agent.cpu':
      return new CpuCollector(options);
    case 'agent.memory':
      return new MemoryCollector(options);
    case 'agent.load_average':
      return new LoadAverageCollector(options);
    case 'agent.filesystem':
      return new FilesystemCollector(options);
    case 'agent.disk':
      return new DiskCollector(options);
    case 'agent.network':
      return new NetworkCollector(options);
    default:
      return unsupported(type);
  }
}
