import { createCipheriv, createDecipheriv, createHash } from 'node:crypto';
import { secretKeyBytes } from '../../shared/ids';

/**
 * A personal value as the audit log keeps it: `pd1:<subject>:<base64url(iv ‖ tag ‖ ciphertext)>`, the value's JSON
 * sealed with its subject's data key (AES-256-GCM, the subject as associated data, so a value cannot be passed
 * off as another subject's). Destroying the key leaves the text unreadable by anyone, the service included.
 */
const PREFIX = 'pd1:';
/** What a sealed value reads as once its subject is erased. */
export const ERASED = '[erased]';

export const newDataKey = (): Buffer => secretKeyBytes();

/**
 * The nonce is synthetic (a SHA-256 of the key, the subject and the value, as SIV derives it): the same value of the
 * same subject seals to the same text, so a retried request's audit body equals the first's (the integration report
 * compares them), and two different values never share a nonce. Equality within one subject is all it tells. (A
 * hash, not an HMAC: an HMAC's key set-up cost as much as the encryption itself, and a nonce needs no secrecy.)
 */
export function seal(key: Buffer, subject: string, value: unknown): string {
  return sealJson(key, subject, JSON.stringify(value));
}

/** `seal` of a value given as its JSON text. */
export function sealJson(key: Buffer, subject: string, plain: string): string {
  const iv = createHash('sha256').update(key).update(subject).update('\u0000').update(plain).digest().subarray(0, 12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  cipher.setAAD(Buffer.from(subject));
  const sealed = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
  return `${PREFIX}${subject}:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64url')}`;
}

/** The subject of a sealed value, or undefined when the text is not one. */
export function sealedSubject(text: string): string | undefined {
  if (!text.startsWith(PREFIX)) return undefined;
  const end = text.lastIndexOf(':');
  return end > PREFIX.length ? text.slice(PREFIX.length, end) : undefined;
}

/** The value sealed in `text` with `key`; undefined when it does not open with that key. */
export function unseal(key: Buffer, text: string): unknown {
  const subject = sealedSubject(text);
  if (subject === undefined) return undefined;
  try {
    const raw = Buffer.from(text.slice(text.lastIndexOf(':') + 1), 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, 12));
    decipher.setAAD(Buffer.from(subject));
    decipher.setAuthTag(raw.subarray(12, 28));
    const plain = Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
    return JSON.parse(plain) as unknown;
  } catch {
    return undefined;
  }
}
