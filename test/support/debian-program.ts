// Owns making sure a program a test runs is installed: Debian's package is installed when the program is missing (tests run as root).
import { execFileSync } from 'node:child_process';

/** True when `program` is on the PATH. */
export function hasProgram(program: string): boolean {
  try {
    execFileSync('sh', ['-c', `command -v ${program}`], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/**
 * Installs the Debian package that provides `program` when it is missing (apt-get update only when
 * the first try fails), so no test relies on what happens to be installed. Call from beforeAll with
 * a generous hook timeout.
 */
export function ensureProgram(program: string, debianPackage: string): void {
  if (hasProgram(program)) return;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = (): void => void execFileSync('apt-get', ['install', '-y', '-q', debianPackage], { stdio: 'ignore', env });
  try {
    install();
  } catch {
    execFileSync('apt-get', ['update', '-q'], { stdio: 'ignore', env });
    install();
  }
  if (!hasProgram(program)) throw new Error(`${program} is still missing after installing ${debianPackage}`);
}
