// Tests of collectorFor: one collector kind per agent check type, unsupported types reported unavailable, nothing ever thrown.
import { describe, expect, it } from 'vitest';
import { AGENT_FIELD_LENGTH_MAX } from '../../../src/agent/agent-limits.js';
import { collectorFor, COLLECTED_CHECK_TYPES } from '../../../src/agent/collectors/collector-registry.js';
import { CpuCollector } from '../../../src/agent/collectors/cpu-collector.js';
import { DiskCollector } from '../../../src/agent/collectors/disk-collector.js';
import { FilesystemCollector } from '../../../src/agent/collectors/filesystem-collector.js';
import { LoadAverageCollector } from '../../../src/agent/collectors/load-average-collector.js';
import { MemoryCollector } from '../../../src/agent/collectors/memory-collector.js';
import { NetworkCollector } from '../../../src/agent/collectors/network-collector.js';
import { AGENT_CHECK_TYPE_IDS } from '../../../src/monitoring/check-types.js';
import { expectUnavailable } from './collected-metrics.js';
import { FixtureRoot } from './proc-fixtures.js';

describe('collectorFor', () => {
  it('makes a new collector of the right kind for each collected type', () => {
    const kinds = [CpuCollector, MemoryCollector, LoadAverageCollector, FilesystemCollector, DiskCollector, NetworkCollector];
    COLLECTED_CHECK_TYPES.forEach((type, i) => expect(collectorFor(type)).toBeInstanceOf(kinds[i]));
    expect(collectorFor('agent.cpu')).not.toBe(collectorFor('agent.cpu'));
  });

  it('collects only agent check types Strata accepts', () => {
    for (const type of COLLECTED_CHECK_TYPES) expect(AGENT_CHECK_TYPE_IDS).toContain(type);
  });

  it('reports other types unavailable, with a status the protocol can carry', async () => {
    expectUnavailable(await collectorFor('agent.plugin').collect({ file: 'x.sh' }, 1), /^check type agent.plugin is not supported by this agent$/);
    const long = await collectorFor(`agent.${'x'.repeat(2000)}`).collect({}, 1);
    expect(long.status.length).toBe(AGENT_FIELD_LENGTH_MAX);
    expect(long.available).toBe(false);
  });

  it('never throws: a procRoot full of junk makes every collector unavailable', async () => {
    const root = new FixtureRoot({ stat: '\u0000junk', meminfo: 'x', loadavg: '', uptime: '-', diskstats: 'a b c', 'net/dev': ':::', mounts: '/ / /' });
    try {
      for (const type of COLLECTED_CHECK_TYPES) {
        const collected = await collectorFor(type, root).collect({ target: 'sda' }, 1);
        expect(collected.available, type).toBe(false);
        expect(collected.metrics).toEqual([]);
      }
      // Details that are not an object at all.
      expect((await collectorFor('agent.disk', root).collect(null as never, 1)).status).toMatch(/^details.target is required/);
    } finally {
      root.remove();
    }
  });

  it('never throws: a directory where a file should be is unavailable', async () => {
    const root = new FixtureRoot({ 'stat/inner': 'cpu0 1 2 3 4\n' });
    try {
      expectUnavailable(await collectorFor('agent.cpu', root).collect({}, 1), /EISDIR/);
    } finally {
      root.remove();
    }
  });
});
