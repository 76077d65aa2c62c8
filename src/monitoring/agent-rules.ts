// Owns the agent id rule of spec 2.1: at most AGENT_ID_LENGTH_MAX letters, digits, dashes and dots.
import { AGENT_ID_LENGTH_MAX } from './monitoring-limits.js';

/** The characters of an agent id (spec 2.1): letters, digits, dash and dot, at least one. */
export const AGENT_ID_PATTERN = /^[-.A-Za-z0-9]+$/;

/** True when `id` is a valid agent id (agent ids named by a caller are checked with it). */
export function isAgentId(id: string): boolean {
  return id.length <= AGENT_ID_LENGTH_MAX && AGENT_ID_PATTERN.test(id);
}
