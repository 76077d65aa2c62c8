// Owns `strata agent-update`: making an update signing key pair, signing and publishing a bundle into a data directory, and verifying a signature.
import { mkdirSync, readFileSync, statSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { createHash } from 'node:crypto';
import { Command } from 'commander';
import { AGENT_UPDATE_BUNDLE_BYTES_MAX, UPDATE_SIGNATURE_BYTES_MAX } from '../agent/agent-limits.js';
import { generateUpdateKeys, publicKeyOf, signBundle, verifyBundle } from '../agent/update/bundle-signature.js';
import { UPDATE_CHANNEL_DEFAULT, UPDATE_DIR_MODE, UpdateStore, writeDurably } from '../agent/update/update-store.js';
import { isStrataError, StrataError } from '../core/errors.js';

/** File name of the private signing key keygen writes (mode 0600). */
export const SIGNING_KEY_FILE = 'update-signing.key';
/** File name of the public key keygen writes; agents pin it with --update-key. */
export const SIGNING_PUBLIC_KEY_FILE = 'update-signing.pub';
/** Mode of the public key file (it is not a secret). */
const PUBLIC_FILE_MODE = 0o644;
/** Largest key file read. */
const KEY_FILE_BYTES_MAX = 64 * 1024;

/** Where the command prints: standard output and error in the CLI; tests pass collectors. */
export interface CommandOutput {
  out(text: string): void;
  err(text: string): void;
}

const processOutput: CommandOutput = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
};

/** Reads a file the user named, refusing one above `maxBytes` or unreadable with CONFIG_INVALID naming the option. */
function readInput(file: string, option: string, maxBytes: number): Buffer {
  const size = statSync(file, { throwIfNoEntry: false });
  if (size === undefined || !size.isFile()) throw new StrataError('CONFIG_INVALID', `--${option} ${file} is not a file`, { option });
  if (size.size > maxBytes) throw new StrataError('CONFIG_INVALID', `--${option} ${file} is ${size.size} bytes; at most ${maxBytes} are taken`, { option });
  return readFileSync(file);
}

/** Runs an action, printing a failure as the other commands do (code and message, exit 2 for bad input, else 1). */
function guarded(output: CommandOutput, action: () => void, failureExitCode?: number): void {
  try {
    action();
  } catch (error) {
    const text = isStrataError(error) ? `${error.code}: ${error.message}` : error instanceof Error ? error.message : String(error);
    output.err(`strata: ${text}\n`);
    process.exitCode = failureExitCode ?? (isStrataError(error) && (error.kind === 'invalid' || error.kind === 'over_limit') ? 2 : 1);
  }
}

function keygenCommand(output: CommandOutput): Command {
  return new Command('keygen')
    .description('make an Ed25519 update signing key pair; keep the .key offline, give agents the .pub (--update-key)')
    .requiredOption('--out <dir>', 'directory for update-signing.key (0600) and update-signing.pub (created 0700 when missing)')
    .action((options: { out: string }) =>
      guarded(output, () => {
        const dir = resolve(options.out);
        mkdirSync(dir, { recursive: true, mode: UPDATE_DIR_MODE });
        const keys = generateUpdateKeys();
        const keyFile = join(dir, SIGNING_KEY_FILE);
        const publicFile = join(dir, SIGNING_PUBLIC_KEY_FILE);
        // 'wx': an existing key is never overwritten; losing it would orphan every agent that pins it.
        try {
          writeDurably(keyFile, keys.privateKeyPem, 0o600);
        } catch (error) {
          if ((error as { code?: unknown }).code !== 'EEXIST') throw error;
          throw new StrataError('CONFIG_INVALID', `${keyFile} exists; move it away or choose another --out`, { option: 'out' });
        }
        writeDurably(publicFile, keys.publicKeyPem, PUBLIC_FILE_MODE, 'w');
        output.out(`wrote ${keyFile} (private, keep offline)\nwrote ${publicFile} (give agents this with --update-key)\n`);
      }),
    );
}

interface SignOptions {
  readonly key: string;
  readonly bundle: string;
  readonly version: string;
  readonly out: string;
  readonly channel: string;
}

function signCommand(output: CommandOutput): Command {
  return new Command('sign')
    .description('sign a bundle (SHA-256 digest; Ed25519 or RSA key) and publish it and its .sig for agents')
    .requiredOption('--key <file>', 'private signing key (PEM: Ed25519, or RSA as openssl makes)')
    .requiredOption('--bundle <file>', 'the bundle to publish')
    .requiredOption('--version <version>', 'its version: 1 to 4 dot-separated numbers, higher than the last published')
    .requiredOption('--out <dir>', 'the data directory of the server that serves it (bundles go to <dir>/agent-updates)')
    .option('--channel <name>', 'update channel', UPDATE_CHANNEL_DEFAULT)
    .action((options: SignOptions) =>
      guarded(output, () => {
        const privateKeyPem = readInput(options.key, 'key', KEY_FILE_BYTES_MAX).toString('utf8');
        const bundle = readInput(options.bundle, 'bundle', AGENT_UPDATE_BUNDLE_BYTES_MAX);
        const signature = signBundle(bundle, privateKeyPem);
        // What agents will do, checked before anything is published.
        verifyBundle(bundle, signature, publicKeyOf(privateKeyPem));
        const dir = new UpdateStore(options.out).publish(options.channel, options.version, bundle, signature);
        const digest = createHash('sha256').update(bundle).digest('hex');
        output.out(`published ${options.channel} ${options.version} (${bundle.length} bytes, sha256 ${digest}) in ${dir}\n`);
      }),
    );
}

function verifyCommand(output: CommandOutput): Command {
  return new Command('verify')
    .description('check a bundle signature with a public key, as agents do; exit 0 when it verifies, 1 otherwise')
    .requiredOption('--key <file>', 'public key (PEM)')
    .requiredOption('--bundle <file>', 'the bundle')
    .requiredOption('--signature <file>', 'its signature (raw bytes, as openssl dgst -sign writes)')
    .action((options: { key: string; bundle: string; signature: string }) =>
      guarded(
        output,
        () => {
          const publicKeyPem = readInput(options.key, 'key', KEY_FILE_BYTES_MAX).toString('utf8');
          const bundle = readInput(options.bundle, 'bundle', AGENT_UPDATE_BUNDLE_BYTES_MAX);
          const signature = readInput(options.signature, 'signature', UPDATE_SIGNATURE_BYTES_MAX);
          verifyBundle(bundle, signature, publicKeyPem);
          output.out('signature valid\n');
        },
        1,
      ),
    );
}

/** The `strata agent-update` command: keygen, sign (publishes into a data directory) and verify. */
export function agentUpdateCommand(output: CommandOutput = processOutput): Command {
  return new Command('agent-update')
    .description('sign and publish agent update bundles; agents verify them with the public key')
    .addCommand(keygenCommand(output))
    .addCommand(signCommand(output))
    .addCommand(verifyCommand(output));
}
