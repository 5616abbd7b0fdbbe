import { randomBytes, randomFillSync, randomInt } from 'node:crypto';

/**
 * Random bytes from a pool refilled 4 KiB at a time: the same CSPRNG as randomBytes, without a system call per id
 * (a quote draws nine ids; one call per id was a few per cent of a request's CPU).
 */
const pool = Buffer.alloc(4096);
let used = pool.length;
function random(n: number): Buffer {
  if (used + n > pool.length) {
    randomFillSync(pool);
    used = 0;
  }
  used += n;
  return pool.subarray(used - n, used);
}

/**
 * The time in milliseconds as 12 hex characters, leading ids that are stored in large indexes (quotes, offers, the
 * audit log's request ids, events), as UUIDv7 does: new keys land at the right edge of their index instead of on a
 * random page of it, so an index that outgrows memory still takes inserts without reading (and, after a checkpoint,
 * logging) a cold page for each.
 */
const timeHex = (): string => Date.now().toString(16).padStart(12, '0');

/** A fresh 256-bit secret (a subject's data key), from the pool: copied, since the pool is drawn again. */
export const secretKeyBytes = (): Buffer => Buffer.from(random(32));

/** 32 lowercase hex characters: the time (48 bits), then 80 random bits. Quote and offer ids. */
export const hex32 = (): string => timeHex() + random(10).toString('hex');

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
/** `veh_…`, `drv_…`: 10 characters of a-z0-9 (3.6e15 values). */
export const prefixedId = (prefix: string): string => `${prefix}_${randomString(LOWER_ALNUM, 10)}`;
export const keyId = (): string => randomString(LOWER_ALNUM, 12);
/** 40 base62 characters ≈ 238 bits: brute force is out of reach, so a fast hash is enough. */
export const keySecret = (): string => randomString(BASE62, 40);
/** `req_`, the time and 48 random bits (24 hex characters). */
export const requestId = (): string => `req_${timeHex()}${random(6).toString('hex')}`;
/** 8 characters of a 30-letter alphabet: 6.5e11 values; uniqueness is enforced by the database. */
export const bookingRef = (): string => randomString(BOOKING_REF_ALPHABET, 8);
/** `evt_`, the time and 48 random bits (24 hex characters): webhook events, drawn on the booking path (no system call). */
export const eventId = (): string => `evt_${timeHex()}${random(6).toString('hex')}`;
/** A Standard Webhooks signing secret: `whsec_` and the base64 of 32 random bytes. */
export const webhookSecret = (): string => `whsec_${randomBytes(32).toString('base64')}`;
/** A tracking link's token: 24 base62 characters, 142 random bits. */
export const trackingToken = (): string => randomString(BASE62, 24);
