// Tests the agent's result buffer's defaults and its refusal of a bad capacity.
import { describe, expect, it } from 'vitest';
import { AGENT_BUFFER_RESULTS_MAX } from '../../../src/agent/agent-limits.js';
import { ResultBuffer } from '../../../src/agent/client/result-buffer.js';

describe('ResultBuffer examples', () => {
  it('is empty at first and defaults to AGENT_BUFFER_RESULTS_MAX slots', () => {
    const buffer = new ResultBuffer<string>();
    expect(buffer.size).toBe(0);
    expect(buffer.shift()).toBeUndefined();
    expect(buffer.capacity).toBe(AGENT_BUFFER_RESULTS_MAX);
  });

  it('refuses a capacity that is not a positive integer', () => {
    expect(() => new ResultBuffer<string>(0)).toThrow(/capacity/);
    expect(() => new ResultBuffer<string>(1.5)).toThrow(/capacity/);
  });
});
