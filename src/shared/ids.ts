import { randomBytes, randomInt } from 'node:crypto';

/** 32 lowercase hex characters (128 random bits): quote and offer ids. */
export const hex32 = (): string => randomBytes(16).toString('hex');

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const LOWER_ALNUM = '0123456789abcdefghijklmnopqrstuvwxyz';
/** Crockford-style alphabet without 0/O, 1/I/L and U: safe to read out over a phone line. */
export const BOOKING_REF_ALPHABET = '23456789ABCDEFGHJKMNPQRSTVWXYZ';

export function randomString(alphabet: string, length: number): string {
  let out = '';
  for (let i = 0; i < length; i += 1) out += alphabet[randomInt(alphabet.length)];
  return out;
}

export const partnerId = (): string => `ptn_${randomString(LOWER_ALNUM, 16)}`;
export const keyId = (): string => randomString(LOWER_ALNUM, 12);
/** 40 base62 characters ≈ 238 bits: brute force is out of reach, so a fast hash is enough. */
export const keySecret = (): string => randomString(BASE62, 40);
export const requestId = (): string => `req_${randomBytes(12).toString('hex')}`;
/** 8 characters of a 30-letter alphabet: 6.5e11 values; uniqueness is enforced by the database. */
export const bookingRef = (): string => randomString(BOOKING_REF_ALPHABET, 8);
