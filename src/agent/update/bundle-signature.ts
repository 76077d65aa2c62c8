// Owns signing and verifying agent update bundles: a signature over the bundle's SHA-256 digest, Ed25519 or RSA (PKCS#1 v1.5, what `openssl dgst -sha256 -sign` makes).
import { createHash, createPrivateKey, createPublicKey, createVerify, generateKeyPairSync, sign, verify, constants, type KeyObject } from 'node:crypto';
import { assert } from '../../core/assert.js';
import { StrataError } from '../../core/errors.js';
import { UPDATE_RSA_KEY_BITS_MIN, UPDATE_SIGNATURE_BYTES_MAX } from '../agent-limits.js';

/** Key types an update may be signed with. */
export const UPDATE_KEY_TYPES: readonly string[] = ['ed25519', 'rsa'];

/** Ed25519 signatures are always this long. */
const ED25519_SIGNATURE_BYTES = 64;

/** Why a verification failed (details.reason of AGENT_UPDATE_SIGNATURE_INVALID). */
export type SignatureFailure = 'key_invalid' | 'key_type' | 'key_too_small' | 'signature_malformed' | 'signature_mismatch';

/** Feeds a bundle in pieces (a download streams it) and checks its signature at the end. */
export interface BundleVerifier {
  /** Adds the next bytes of the bundle. */
  update(chunk: Buffer): void;
  /** Throws AGENT_UPDATE_SIGNATURE_INVALID (details.reason) unless `signature` signs the bytes fed so far. Call once. */
  verify(signature: Buffer): void;
}

function refused(reason: SignatureFailure, message: string): StrataError {
  return new StrataError('AGENT_UPDATE_SIGNATURE_INVALID', message, { reason });
}

/** The public key of a PEM, checked to be a type and size updates accept. */
function updatePublicKey(publicKeyPem: string): KeyObject {
  let key: KeyObject;
  try {
    key = createPublicKey(publicKeyPem);
  } catch {
    throw refused('key_invalid', 'the update public key is not a PEM public key');
  }
  checkKeyType(key, (reason, message) => refused(reason, message));
  return key;
}

function checkKeyType(key: KeyObject, fail: (reason: SignatureFailure, message: string) => StrataError): void {
  const type = key.asymmetricKeyType ?? 'unknown';
  if (!UPDATE_KEY_TYPES.includes(type)) throw fail('key_type', `an update key must be Ed25519 or RSA, not ${type}`);
  const bits = key.asymmetricKeyDetails?.modulusLength ?? 0;
  if (type === 'rsa' && bits < UPDATE_RSA_KEY_BITS_MIN) {
    throw fail('key_too_small', `an RSA update key needs at least ${UPDATE_RSA_KEY_BITS_MIN} bits, this one has ${bits}`);
  }
}

/** The signature length a key makes; anything else is malformed before any arithmetic. */
function signatureBytesOf(key: KeyObject): number {
  if (key.asymmetricKeyType === 'ed25519') return ED25519_SIGNATURE_BYTES;
  return Math.ceil((key.asymmetricKeyDetails?.modulusLength ?? 0) / 8);
}

/** A verifier for one bundle under `publicKeyPem`; throws AGENT_UPDATE_SIGNATURE_INVALID at once for a key of the wrong type or size. */
export function createBundleVerifier(publicKeyPem: string): BundleVerifier {
  const key = updatePublicKey(publicKeyPem);
  // Ed25519 signs the 32-byte digest (it cannot take a prehash); RSA's PKCS#1 v1.5 hashes inside the verifier.
  const hash = key.asymmetricKeyType === 'ed25519' ? createHash('sha256') : undefined;
  const rsa = hash === undefined ? createVerify('sha256') : undefined;
  let done = false;
  return {
    update(chunk) {
      assert(!done, 'a bundle verifier takes no bytes after verify');
      if (hash !== undefined) hash.update(chunk);
      else rsa?.update(chunk);
    },
    verify(signature) {
      assert(!done, 'a bundle verifier verifies once');
      done = true;
      const expected = signatureBytesOf(key);
      if (signature.length !== expected || signature.length > UPDATE_SIGNATURE_BYTES_MAX) {
        throw refused('signature_malformed', `the update signature is ${signature.length} bytes; this ${key.asymmetricKeyType} key makes ${expected}-byte signatures`);
      }
      let valid: boolean;
      try {
        valid = hash !== undefined ? verify(null, hash.digest(), key, signature) : (rsa?.verify({ key, padding: constants.RSA_PKCS1_PADDING }, signature) ?? false);
      } catch {
        valid = false;
      }
      if (!valid) throw refused('signature_mismatch', 'the update signature does not match the bundle and the pinned public key');
    },
  };
}

/** Verifies; throws StrataError AGENT_UPDATE_SIGNATURE_INVALID (details.reason) on any failure, including a key of another type or a malformed signature. */
export function verifyBundle(bundle: Buffer, signature: Buffer, publicKeyPem: string): void {
  const verifier = createBundleVerifier(publicKeyPem);
  verifier.update(bundle);
  verifier.verify(signature);
}

/** Signs the SHA-256 digest of `bundle`: Ed25519 keys sign the 32-byte digest; RSA keys sign with PKCS#1 v1.5 over SHA-256 (what `openssl dgst -sha256 -sign key` makes). Throws CONFIG_INVALID (details.option 'key') for a key that is not an Ed25519 or RSA private key. */
export function signBundle(bundle: Buffer, privateKeyPem: string): Buffer {
  let key: KeyObject;
  try {
    key = createPrivateKey(privateKeyPem);
  } catch {
    throw new StrataError('CONFIG_INVALID', 'the signing key is not a PEM private key (an unencrypted PKCS#8 or PKCS#1 key)', { option: 'key' });
  }
  checkKeyType(key, (reason, message) => new StrataError('CONFIG_INVALID', message, { option: 'key', reason, accepted: UPDATE_KEY_TYPES }));
  if (key.asymmetricKeyType === 'ed25519') return sign(null, createHash('sha256').update(bundle).digest(), key);
  return sign('sha256', bundle, { key, padding: constants.RSA_PKCS1_PADDING });
}

/** A new Ed25519 key pair in PEM (pkcs8 / spki). */
export function generateUpdateKeys(): { privateKeyPem: string; publicKeyPem: string } {
  const pair = generateKeyPairSync('ed25519', {
    privateKeyEncoding: { type: 'pkcs8', format: 'pem' },
    publicKeyEncoding: { type: 'spki', format: 'pem' },
  });
  return { privateKeyPem: pair.privateKey, publicKeyPem: pair.publicKey };
}

/** The public key PEM (spki) of a private key PEM; throws CONFIG_INVALID for one that is not a private key. */
export function publicKeyOf(privateKeyPem: string): string {
  try {
    return createPublicKey(createPrivateKey(privateKeyPem)).export({ type: 'spki', format: 'pem' }).toString();
  } catch {
    throw new StrataError('CONFIG_INVALID', 'the signing key is not a PEM private key', { option: 'key' });
  }
}
