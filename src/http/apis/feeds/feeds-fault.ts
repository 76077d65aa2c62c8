// Owns the event-feed API's error body: {"error": {"code", "message"}} in JSON, <error> in XML.
import { XMLBuilder } from 'fast-xml-parser';
import type { ErrorView } from '../../error-view.js';

/** Namespace of the XML error body (the Atom server family the reference runs on writes its errors in it). */
const ERROR_NS = 'http://abdera.apache.org';

const builder = new XMLBuilder({ format: true, ignoreAttributes: false, attributeNamePrefix: '@_' });

/** `{"error": {"code": "401", "message": ..., "details": {"code": <Strata code>}}}`: the status as a string, as the reference writes it. */
export function feedsFaultJson(view: ErrorView): Record<string, unknown> {
  return { error: { code: String(view.status), message: view.message, details: { code: view.code, ...view.details } } };
}

/** `<error xmlns=...><code>401</code><message>...</message><details>CODE</details></error>`. */
export function feedsFaultXml(view: ErrorView): string {
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8' },
    error: { '@_xmlns': ERROR_NS, code: view.status, message: view.message, details: view.code },
  }) as string;
}
