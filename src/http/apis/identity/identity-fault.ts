// Owns the identity API's error body: the fault wrapped under its name, as the reference identity service does.
import type { ErrorView } from '../../error-view.js';
import { faultName } from '../../fault-names.js';

/** The identity API's own fault names (OpenStack identity v2.0); the rest are shared, 500 and unknowns are identityFault. */
const IDENTITY_FAULT_NAMES: Readonly<Record<number, string>> = { 409: 'conflict' };

/** `{"<fault>": {"code": status, "message": ...}}` for an error of the identity API. */
export function identityFaultBody(view: ErrorView): Record<string, unknown> {
  const name = faultName(view.status, IDENTITY_FAULT_NAMES, 'identityFault');
  return { [name]: { code: view.status, message: view.message } };
}
