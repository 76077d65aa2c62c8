// Owns the domain-listing API's error bodies: unwrapped {message, code, details} in JSON, <faultName code> in XML.
import { XMLBuilder } from 'fast-xml-parser';
import { DNS_NS } from '../../../dns/dns-xml-view.js';
import type { ErrorView } from '../../error-view.js';
import { faultName } from '../../fault-names.js';

/** The DNS API's own fault names; the rest are shared (fault-names.ts), 500 and unknowns are dnsFault. */
const DNS_FAULT_NAMES: Readonly<Record<number, string>> = { 409: 'itemAlreadyExists' };

const builder = new XMLBuilder({ format: true, ignoreAttributes: false, attributeNamePrefix: '@_' });

/** The reference's fault name of an error view. */
export function dnsFaultName(view: ErrorView): string {
  return faultName(view.status, DNS_FAULT_NAMES, 'dnsFault');
}

/** `{"message", "code": status, "details": <Strata code>}`: not wrapped, as the reference's DNS faults are not. */
export function dnsFaultJson(view: ErrorView): Record<string, unknown> {
  return { message: view.message, code: view.status, details: view.code };
}

/** `<badRequest xmlns=... code="400"><message>...</message><details>CODE</details></badRequest>`. */
export function dnsFaultXml(view: ErrorView): string {
  return builder.build({
    '?xml': { '@_version': '1.0', '@_encoding': 'UTF-8', '@_standalone': 'yes' },
    [dnsFaultName(view)]: { '@_xmlns': DNS_NS, '@_code': view.status, message: view.message, details: view.code },
  }) as string;
}
