// Checks by property that no change to a signed bundle or its signature gets past verifyBundle, and that how a bundle is split when streamed never matters.
import { generateKeyPairSync } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { createBundleVerifier, generateUpdateKeys, signBundle, verifyBundle } from '../../../src/agent/update/bundle-signature.js';

const ed = generateUpdateKeys();
const rsaPair = generateKeyPairSync('rsa', { modulusLength: 2048, privateKeyEncoding: { type: 'pkcs8', format: 'pem' }, publicKeyEncoding: { type: 'spki', format: 'pem' } });
const rsa = { privateKeyPem: rsaPair.privateKey, publicKeyPem: rsaPair.publicKey };
const bundle = Buffer.from(Array.from({ length: 4096 }, (_, i) => (i * 31 + 7) % 256));
const signatures = { ed25519: signBundle(bundle, ed.privateKeyPem), rsa: signBundle(bundle, rsa.privateKeyPem) };
const keys = { ed25519: ed, rsa };

function codeOf(action: () => void): string | undefined {
  try {
    action();
    return undefined;
  } catch (error) {
    return (error as { code?: string }).code;
  }
}

const keyType = fc.constantFrom('ed25519' as const, 'rsa' as const);

describe('verifyBundle properties', () => {
  it('refuses the bundle with any one byte flipped in any position', () => {
    fc.assert(
      fc.property(keyType, fc.nat({ max: bundle.length - 1 }), fc.integer({ min: 1, max: 255 }), (type, position, mask) => {
        const tampered = Buffer.from(bundle);
        tampered[position] = (tampered[position] ?? 0) ^ mask;
        expect(codeOf(() => verifyBundle(tampered, signatures[type], keys[type].publicKeyPem))).toBe('AGENT_UPDATE_SIGNATURE_INVALID');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses the signature with any one byte flipped', () => {
    fc.assert(
      fc.property(keyType, fc.nat(), fc.integer({ min: 1, max: 255 }), (type, at, mask) => {
        const signature = Buffer.from(signatures[type]);
        const position = at % signature.length;
        signature[position] = (signature[position] ?? 0) ^ mask;
        expect(codeOf(() => verifyBundle(bundle, signature, keys[type].publicKeyPem))).toBe('AGENT_UPDATE_SIGNATURE_INVALID');
      }),
      { numRuns: 200 },
    );
  });

  it('refuses a truncated bundle and any garbage signature', () => {
    fc.assert(
      fc.property(keyType, fc.nat({ max: bundle.length - 1 }), fc.uint8Array({ maxLength: 600 }), (type, length, garbage) => {
        expect(codeOf(() => verifyBundle(bundle.subarray(0, length), signatures[type], keys[type].publicKeyPem))).toBe('AGENT_UPDATE_SIGNATURE_INVALID');
        expect(codeOf(() => verifyBundle(bundle, Buffer.from(garbage), keys[type].publicKeyPem))).toBe('AGENT_UPDATE_SIGNATURE_INVALID');
      }),
      { numRuns: 100 },
    );
  });

  it('accepts the bundle however it is split into pieces', () => {
    fc.assert(
      fc.property(keyType, fc.array(fc.nat({ max: bundle.length }), { maxLength: 12 }), (type, cuts) => {
        const points = [0, ...[...cuts].sort((a, b) => a - b), bundle.length];
        const verifier = createBundleVerifier(keys[type].publicKeyPem);
        for (let i = 1; i < points.length; i += 1) verifier.update(bundle.subarray(points[i - 1], points[i]));
        expect(codeOf(() => verifier.verify(signatures[type]))).toBeUndefined();
      }),
      { numRuns: 100 },
    );
  });
});
