// Owns the agent id rule of spec 2.1: at most 255 letters, digits, dashes and dots.
import { AGENT_ID_LENGTH_MAX } from './monitoring-limits.js';

/** An agent id as the spec allows it (letters, digits, dash, dot; 1 to 255 characters). */
export const AGENT_ID_PATTERN = /^[-.A-Za-z0-9]{1,255}$/;

/** True when `id` is a valid agent id. */
export function isAgentId(id: string): boolean {
  return id.length <= AGENT_ID_LENGTH_MAX && AGENT_ID_PATTERN.test(id);
}
