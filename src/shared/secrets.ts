import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s, 'utf8').digest();

/** Compares two secrets in constant time, whatever their lengths (both are hashed to 32 bytes first). */
export const sameSecret = (presented: string, expected: string): boolean => timingSafeEqual(digest(presented), digest(expected));
