// Owns switching on V8's linear-time regular expression engine, the one guard both user-pattern rooms (monitoring, protocols) rely on.
import { setFlagsFromString } from 'node:v8';

function supportsFlag(flag: string): boolean {
  try {
    new RegExp('', flag);
    return true;
  } catch {
    return false;
  }
}

/**
 * The flag of V8's linear-time regular expression engine ('l'), turned on for this process the
 * first time it is needed, or '' when this runtime has no such engine. It turns on one V8 flag only:
 * it adds the 'l' flag and changes no existing regular expression.
 */
export function linearEngineFlag(): 'l' | '' {
  if (supportsFlag('l')) return 'l';
  setFlagsFromString('--enable-experimental-regexp-engine');
  return supportsFlag('l') ? 'l' : '';
}
