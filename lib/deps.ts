// The side effects hooks may use, passed in so that decisions stay pure and tests control them.
import { randomBytes } from 'node:crypto';

export interface Deps {
  /** The clock, read once per hook call for condition timestamps. */
  now(): Date;
  /** A new random secret of this many bytes of entropy, URL-safe base64. */
  randomSecret(bytes: number): string;
}

export function defaultDeps(): Deps {
  return {
    now: () => new Date(),
    randomSecret: (bytes) => randomBytes(bytes).toString('base64url'),
  };
}
