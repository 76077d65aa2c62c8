// Owns the agent's side of updates: downloading a bundle and its signature from the endpoint over TLS, verifying them, and staging them under <stateDir>/updates/<version>/.
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { StrataError } from '../../core/errors.js';
import { AGENT_UPDATE_BUNDLE_BYTES_MAX, AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS, UPDATE_SIGNATURE_BYTES_MAX } from '../agent-limits.js';
import { createBundleVerifier } from '../update/bundle-signature.js';
import { isChannel, isVersion, temporaryName, UPDATE_DIR_MODE, UPDATE_FILE_MODE, writeDurably } from '../update/update-store.js';

/** Directory name under the agent's state directory where verified updates wait. */
export const STAGED_UPDATES_DIR_NAME = 'updates';

/** Where updates come from: an endpoint's TLS port, trusted through `ca` only. */
export interface UpdateSource {
  readonly host: string;
  readonly port: number;
  /** PEM of the root certificate(s) to trust; the system store is never used. */
  readonly ca: string;
  readonly servername?: string;
}

/** What fetchAndStageUpdate needs; the two limits are optional so tests can lower them. */
export interface StageUpdateOptions {
  readonly source: UpdateSource;
  readonly channel: string;
  readonly version: string;
  readonly publicKeyPem: string;
  readonly stateDir: string;
  /** Largest bundle accepted (AGENT_UPDATE_BUNDLE_BYTES_MAX). */
  readonly bundleBytesMax?: number;
  /** Deadline of both downloads together (AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS). */
  readonly timeoutMs?: number;
}

/** Why a download failed (details.reason of AGENT_UPDATE_UNAVAILABLE). */
export type DownloadFailure = 'name_invalid' | 'not_found' | 'status' | 'too_large' | 'truncated' | 'timeout' | 'network';

function unavailable(reason: DownloadFailure, message: string, details: Record<string, unknown> = {}): StrataError {
  return new StrataError('AGENT_UPDATE_UNAVAILABLE', message, { reason, ...details });
}

/** Sends one GET; resolves with a 200 response, throws AGENT_UPDATE_UNAVAILABLE otherwise. */
function get(source: UpdateSource, path: string, signal: AbortSignal): Promise<IncomingMessage> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: source.host,
        port: source.port,
        path,
        method: 'GET',
        ca: source.ca,
        rejectUnauthorized: true,
        agent: false,
        signal,
        headers: { Connection: 'close' },
        ...(source.servername === undefined ? {} : { servername: source.servername }),
      },
      (response) => {
        if (response.statusCode === 200) {
          resolve(response);
          return;
        }
        response.destroy();
        const status = response.statusCode ?? 0;
        reject(status === 404 ? unavailable('not_found', `the endpoint has no ${path}`, { status }) : unavailable('status', `the endpoint answered ${status} for ${path}`, { status }));
      },
    );
    request.on('error', reject);
    request.end();
  });
}

/** Reads a response body through `onChunk`, refusing more than `maxBytes` (by Content-Length before reading, and by count while reading). */
async function readBody(response: IncomingMessage, path: string, maxBytes: number, onChunk: (chunk: Buffer) => Promise<void>): Promise<void> {
  const header = response.headers['content-length'];
  const declared = header === undefined ? undefined : Number(header);
  const tooLarge = (): StrataError => unavailable('too_large', `${path} is larger than the ${maxBytes} bytes the agent takes`, { bytesMax: maxBytes });
  if (declared !== undefined && declared > maxBytes) {
    response.destroy();
    throw tooLarge();
  }
  let total = 0;
  for await (const chunk of response as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      response.destroy();
      throw tooLarge();
    }
    await onChunk(chunk);
  }
  if (declared !== undefined && total !== declared) throw unavailable('truncated', `${path} ended after ${total} of ${declared} bytes`);
}

/** Downloads `path` whole into memory (the signature: a few bytes). */
async function download(source: UpdateSource, path: string, signal: AbortSignal, maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  await readBody(await get(source, path, signal), path, maxBytes, async (chunk) => void chunks.push(chunk));
  return Buffer.concat(chunks);
}

/** Downloads `path` into a new file, feeding every byte to `onChunk` too; flushed before it returns. */
async function downloadToFile(source: UpdateSource, path: string, signal: AbortSignal, maxBytes: number, file: string, onChunk: (chunk: Buffer) => void): Promise<void> {
  const response = await get(source, path, signal);
  const handle = await open(file, 'wx', UPDATE_FILE_MODE);
  try {
    await readBody(response, path, maxBytes, async (chunk) => {
      onChunk(chunk);
      for (let offset = 0; offset < chunk.length; ) offset += (await handle.write(chunk, offset)).bytesWritten;
    });
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/** Moves a finished staging directory to `target`, replacing an older staging of the same version. */
function replaceDirectory(temporary: string, target: string, parent: string): void {
  if (statSync(target, { throwIfNoEntry: false }) === undefined) {
    renameSync(temporary, target);
    return;
  }
  const old = join(parent, temporaryName('replaced'));
  renameSync(target, old);
  renameSync(temporary, target);
  rmSync(old, { recursive: true, force: true });
}

/** A StrataError for whatever a download threw: ours pass through, the deadline and socket or TLS failures are named. */
function downloadError(error: unknown, signal: AbortSignal, timeoutMs: number): StrataError {
  if (error instanceof StrataError) return error;
  if (signal.aborted) return unavailable('timeout', `the update download took longer than ${timeoutMs} ms`, { timeoutMs });
  const code = (error as { code?: unknown }).code;
  return unavailable('network', `the update download failed: ${(error as Error).message}`, { errorCode: typeof code === 'string' ? code : undefined });
}

/**
 * Downloads bundle and signature of `version` from the endpoint over TLS trusting only `ca`, bounded
 * by AGENT_UPDATE_BUNDLE_BYTES_MAX and AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS, verifies with
 * `publicKeyPem`, and stages them in `<stateDir>/updates/<version>/` (bundle, bundle.sig;
 * tmp+rename); returns the staged bundle path. A failed verification stages nothing and throws
 * AGENT_UPDATE_SIGNATURE_INVALID; a failed download stages nothing and throws
 * AGENT_UPDATE_UNAVAILABLE (details.reason: a DownloadFailure).
 */
export async function fetchAndStageUpdate(options: StageUpdateOptions): Promise<string> {
  const { source, channel, version } = options;
  if (!isChannel(channel) || !isVersion(version)) {
    throw unavailable('name_invalid', `channel ${JSON.stringify(channel)} or version ${JSON.stringify(version)} is not a valid update name`);
  }
  // A bad pinned key fails here, before any byte is downloaded.
  const verifier = createBundleVerifier(options.publicKeyPem);
  const timeoutMs = options.timeoutMs ?? AGENT_UPDATE_DOWNLOAD_TIMEOUT_MS;
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  const parent = join(options.stateDir, STAGED_UPDATES_DIR_NAME);
  const temporary = join(parent, temporaryName(version));
  const base = `/upgrades/${channel}/${version}`;
  try {
    const signature = await download(source, `${base}/bundle.sig`, controller.signal, UPDATE_SIGNATURE_BYTES_MAX);
    mkdirSync(parent, { recursive: true, mode: UPDATE_DIR_MODE });
    mkdirSync(temporary, { mode: UPDATE_DIR_MODE });
    const bundleMax = options.bundleBytesMax ?? AGENT_UPDATE_BUNDLE_BYTES_MAX;
    await downloadToFile(source, `${base}/bundle`, controller.signal, bundleMax, join(temporary, 'bundle'), (chunk) => verifier.update(chunk));
    verifier.verify(signature);
    writeDurably(join(temporary, 'bundle.sig'), signature, UPDATE_FILE_MODE);
    const target = join(parent, version);
    replaceDirectory(temporary, target, parent);
    return join(target, 'bundle');
  } catch (error) {
    rmSync(temporary, { recursive: true, force: true });
    throw downloadError(error, controller.signal, timeoutMs);
  } finally {
    clearTimeout(timer);
  }
}
