// Tests the host info shapes of the protocol: the agent's reading of host_info.get params, the endpoint's reading of the agent's results (ours and the reference agent's).
import { describe, expect, it } from 'vitest';
import { hostInfoParams, hostInfoResult, hostInfoTypesResult, isHostInfoType } from '../../../src/agent/protocol/method-params.js';
import { HOST_INFO_TYPES } from '../../../src/agent/protocol/messages.js';

describe('hostInfoParams', () => {
  it('takes each of the eight types and refuses any other, naming type (400: the connection stays)', () => {
    for (const type of HOST_INFO_TYPES) expect(hostInfoParams({ type })).toEqual({ type });
    for (const params of [{ type: 'CPU' }, { type: 'sysctl' }, { type: 'network_interaces' }, {}, null, [], { type: 3 }]) {
      expect(() => hostInfoParams(params)).toThrow(expect.objectContaining({ code: 'AGENT_PARAMS_INVALID' }));
    }
    expect(() => hostInfoParams({ type: 'nil' })).toThrow(expect.objectContaining({ details: { field: 'type' } }));
    expect(isHostInfoType('who')).toBe(true);
    expect(isHostInfoType('constructor')).toBe(false);
  });
});

describe('hostInfoResult', () => {
  it('reads our result and the reference agent\'s (no truncated), lists and objects by type', () => {
    expect(hostInfoResult({ timestamp: 5, metrics: [{ pid: 1 }], error: null, truncated: { listed: 1, total: 3 } }, 'processes')).toEqual({ timestamp: 5, metrics: [{ pid: 1 }], error: null, truncated: { listed: 1, total: 3 } });
    expect(hostInfoResult({ timestamp: 5, metrics: { total: 1 }, error: null }, 'memory')).toEqual({ timestamp: 5, metrics: { total: 1 }, error: null, truncated: null });
    expect(hostInfoResult({ timestamp: 5, metrics: [] }, 'who')).toEqual({ timestamp: 5, metrics: [], error: null, truncated: null });
  });

  it('reads a failed read as empty with its error, whatever its metrics', () => {
    expect(hostInfoResult({ timestamp: 5, metrics: {}, error: 'open /proc/stat: EACCES' }, 'cpus')).toEqual({ timestamp: 5, metrics: [], error: 'open /proc/stat: EACCES', truncated: null });
    expect(hostInfoResult({ timestamp: 5, metrics: [], error: 'gone' }, 'system')).toMatchObject({ metrics: {}, error: 'gone' });
  });

  it('refuses a result of the wrong shape, naming the field', () => {
    const cases: [unknown, string][] = [
      [null, 'result'],
      [{ metrics: [] }, 'timestamp'],
      [{ timestamp: 1.5, metrics: [] }, 'timestamp'],
      [{ timestamp: 1, metrics: {} }, 'metrics'],
      [{ timestamp: 1, metrics: [3] }, 'metrics[0]'],
      [{ timestamp: 1, metrics: [], error: 7 }, 'error'],
      [{ timestamp: 1, metrics: [], truncated: { listed: 4, total: 3 } }, 'truncated'],
      [{ timestamp: 1, metrics: [], truncated: 'yes' }, 'truncated'],
    ];
    for (const [result, field] of cases) expect(() => hostInfoResult(result, 'cpus'), field).toThrow(expect.objectContaining({ code: 'AGENT_PARAMS_INVALID', details: { field } }));
    expect(() => hostInfoResult({ timestamp: 1, metrics: [] }, 'memory')).toThrow(expect.objectContaining({ details: { field: 'metrics' } }));
  });

  it('reads host_info_types.get results', () => {
    expect(hostInfoTypesResult({ types: ['cpus', 'who'] })).toEqual({ types: ['cpus', 'who'] });
    expect(() => hostInfoTypesResult({ types: [''] })).toThrow(expect.objectContaining({ details: { field: 'types[0]' } }));
    expect(() => hostInfoTypesResult({ types: Array.from({ length: 65 }, () => 'x') })).toThrow(expect.objectContaining({ details: { field: 'types' } }));
  });
});
