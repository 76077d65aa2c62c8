// Checks update bundle signatures: Ed25519 and RSA round trips, byte-for-byte compatibility with the openssl program both ways, and every kind of refusal.
import { execFileSync } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBundleVerifier, generateUpdateKeys, publicKeyOf, signBundle, verifyBundle } from '../../../src/agent/update/bundle-signature.js';
import { StrataError } from '../../../src/core/errors.js';
import { ensureProgram } from '../../support/debian-program.js';

// Named, not spread: with `...pem` TypeScript picks generateKeyPairSync's KeyObject overload, though PEM strings come back.
const privateKeyEncoding = { type: 'pkcs8', format: 'pem' } as const;
const publicKeyEncoding = { type: 'spki', format: 'pem' } as const;
const bundle = Buffer.from('#!/bin/sh\necho strata agent bundle 1.2.3\n'.repeat(500));

/** The details.reason of the AGENT_UPDATE_SIGNATURE_INVALID `action` throws (fails the test if it throws anything else or nothing). */
function refusal(action: () => void): unknown {
  try {
    action();
  } catch (error) {
    expect(error).toBeInstanceOf(StrataError);
    expect((error as StrataError).code).toBe('AGENT_UPDATE_SIGNATURE_INVALID');
    return (error as StrataError).details['reason'];
  }
  throw new Error('expected AGENT_UPDATE_SIGNATURE_INVALID, nothing was thrown');
}

let dir: string;
let rsa: { privateKey: string; publicKey: string };
const ed = generateUpdateKeys();

beforeAll(() => {
  ensureProgram('openssl', 'openssl');
  dir = mkdtempSync(join(tmpdir(), 'strata-bundle-sig-'));
  rsa = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding, publicKeyEncoding });
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('signBundle and verifyBundle', () => {
  it('round-trips with an Ed25519 key pair from generateUpdateKeys', () => {
    expect(ed.privateKeyPem).toContain('BEGIN PRIVATE KEY');
    expect(ed.publicKeyPem).toContain('BEGIN PUBLIC KEY');
    const signature = signBundle(bundle, ed.privateKeyPem);
    expect(signature.length).toBe(64);
    expect(() => verifyBundle(bundle, signature, ed.publicKeyPem)).not.toThrow();
    expect(publicKeyOf(ed.privateKeyPem)).toBe(ed.publicKeyPem);
  });

  it('round-trips with an RSA key pair', () => {
    const signature = signBundle(bundle, rsa.privateKey);
    expect(signature.length).toBe(256);
    expect(() => verifyBundle(bundle, signature, rsa.publicKey)).not.toThrow();
  });

  it('verifies a bundle fed in pieces as it verifies it whole', () => {
    for (const keys of [ed, { privateKeyPem: rsa.privateKey, publicKeyPem: rsa.publicKey }]) {
      const verifier = createBundleVerifier(keys.publicKeyPem);
      for (let offset = 0; offset < bundle.length; offset += 777) verifier.update(bundle.subarray(offset, offset + 777));
      expect(() => verifier.verify(signBundle(bundle, keys.privateKeyPem))).not.toThrow();
    }
  });

  it('accepts what `openssl dgst -sha256 -sign` makes, and openssl accepts ours (RSA)', () => {
    const keyFile = join(dir, 'rsa.key');
    const pubFile = join(dir, 'rsa.pub');
    const bundleFile = join(dir, 'bundle');
    writeFileSync(keyFile, rsa.privateKey, { mode: 0o600 });
    writeFileSync(pubFile, rsa.publicKey);
    writeFileSync(bundleFile, bundle);
    execFileSync('openssl', ['dgst', '-sha256', '-sign', keyFile, '-out', join(dir, 'openssl.sig'), bundleFile]);
    const theirs = readFileSync(join(dir, 'openssl.sig'));
    expect(() => verifyBundle(bundle, theirs, rsa.publicKey)).not.toThrow();
    // PKCS#1 v1.5 is deterministic: the same key signs the same digest to the same bytes.
    expect(signBundle(bundle, rsa.privateKey).equals(theirs)).toBe(true);
    writeFileSync(join(dir, 'ours.sig'), signBundle(bundle, rsa.privateKey));
    const out = execFileSync('openssl', ['dgst', '-sha256', '-verify', pubFile, '-signature', join(dir, 'ours.sig'), bundleFile]).toString();
    expect(out.trim()).toBe('Verified OK');
  });

  it('signs with Ed25519 over the SHA-256 digest exactly as openssl pkeyutl -rawin does', () => {
    const keyFile = join(dir, 'ed.key');
    const digestFile = join(dir, 'digest');
    writeFileSync(keyFile, ed.privateKeyPem, { mode: 0o600 });
    writeFileSync(join(dir, 'bundle-ed'), bundle);
    execFileSync('openssl', ['dgst', '-sha256', '-binary', '-out', digestFile, join(dir, 'bundle-ed')]);
    const theirs = execFileSync('openssl', ['pkeyutl', '-sign', '-inkey', keyFile, '-rawin', '-in', digestFile]);
    expect(() => verifyBundle(bundle, theirs, ed.publicKeyPem)).not.toThrow();
    expect(signBundle(bundle, ed.privateKeyPem).equals(theirs)).toBe(true);
  });
});

describe('refusals (AGENT_UPDATE_SIGNATURE_INVALID)', () => {
  it('refuses a signature by another key of the same type', () => {
    const other = generateUpdateKeys();
    expect(refusal(() => verifyBundle(bundle, signBundle(bundle, other.privateKeyPem), ed.publicKeyPem))).toBe('signature_mismatch');
    const otherRsa = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding, publicKeyEncoding });
    expect(refusal(() => verifyBundle(bundle, signBundle(bundle, otherRsa.privateKey), rsa.publicKey))).toBe('signature_mismatch');
  });

  it('refuses a signature made with a key of another type', () => {
    expect(refusal(() => verifyBundle(bundle, signBundle(bundle, rsa.privateKey), ed.publicKeyPem))).toBe('signature_malformed');
    expect(refusal(() => verifyBundle(bundle, signBundle(bundle, ed.privateKeyPem), rsa.publicKey))).toBe('signature_malformed');
  });

  it('refuses keys of types updates do not take, small RSA keys, and text that is no key', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding, publicKeyEncoding });
    expect(refusal(() => verifyBundle(bundle, Buffer.alloc(64), ec.publicKey))).toBe('key_type');
    const x25519 = generateKeyPairSync('x25519', { privateKeyEncoding, publicKeyEncoding });
    expect(refusal(() => verifyBundle(bundle, Buffer.alloc(64), x25519.publicKey))).toBe('key_type');
    const small = generateKeyPairSync('rsa', { modulusLength: 1024, privateKeyEncoding, publicKeyEncoding });
    expect(refusal(() => verifyBundle(bundle, signBundle(bundle, rsa.privateKey), small.publicKey))).toBe('key_too_small');
    expect(refusal(() => verifyBundle(bundle, Buffer.alloc(64), 'not a key'))).toBe('key_invalid');
    expect(refusal(() => verifyBundle(bundle, Buffer.alloc(64), ''))).toBe('key_invalid');
  });

  it('refuses empty, truncated, extended and garbage signatures', () => {
    const good = signBundle(bundle, ed.privateKeyPem);
    expect(refusal(() => verifyBundle(bundle, Buffer.alloc(0), ed.publicKeyPem))).toBe('signature_malformed');
    expect(refusal(() => verifyBundle(bundle, good.subarray(0, 63), ed.publicKeyPem))).toBe('signature_malformed');
    expect(refusal(() => verifyBundle(bundle, Buffer.concat([good, Buffer.from([0])]), ed.publicKeyPem))).toBe('signature_malformed');
    expect(refusal(() => verifyBundle(bundle, Buffer.alloc(64, 0xff), ed.publicKeyPem))).toBe('signature_mismatch');
    expect(refusal(() => verifyBundle(bundle, Buffer.alloc(256, 0xff), rsa.publicKey))).toBe('signature_mismatch');
    expect(refusal(() => verifyBundle(bundle, Buffer.from(good.toString('base64')), ed.publicKeyPem))).toBe('signature_malformed');
  });

  it('refuses to sign with a key that is not an Ed25519 or RSA private key (CONFIG_INVALID)', () => {
    const ec = generateKeyPairSync('ec', { namedCurve: 'P-256', privateKeyEncoding, publicKeyEncoding });
    expect(() => signBundle(bundle, ec.privateKey)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => signBundle(bundle, ed.publicKeyPem)).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
    expect(() => signBundle(bundle, 'garbage')).toThrow(expect.objectContaining({ code: 'CONFIG_INVALID' }));
  });
});
