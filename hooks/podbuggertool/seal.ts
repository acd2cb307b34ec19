// The continue token of a count cut short, sealed before it goes into the tool's status (status.countProgress). The
// API server's token is base64 JSON of the list's resourceVersion and the key to start from: the name of the next pod
// the tool selects. The status is read by the tool's author, who may not be allowed to list pods (docs/podbuggertool.md,
// "What a tool's status says about pods"): the token is kept there only encrypted and authenticated (AES-256-GCM),
// bound to the tool (namespace, name, uid, generation), and padded, so that it tells neither a name nor its length.
//
// The key is derived from the hook server's own credential (METAOPS_AUTH_TOKEN, or METAOPS_BASIC_AUTH), which every
// replica of the server has and which outlives a restart: a count cut short on one replica resumes on another, or
// after a restart. Without one (a server that serves unauthenticated callers), a key of the process: a count then
// resumes only on the process that cut it short, and starts again from the first page elsewhere. A token that does
// not open (another key, a rotated credential, anything written by hand) is no token: the count starts again.
import { createCipheriv, createDecipheriv, createHmac, hkdfSync, randomBytes } from 'node:crypto';
import { configuredSecret, type KubeObject } from '../../lib/index.js';

const PREFIX = 's1.';
const IV_BYTES = 12;
const TAG_BYTES = 16;
/** Tokens are padded to a multiple of this, with a 2-byte length in front. */
const BLOCK = 1024;
/**
 * The longest token sealed: two blocks. A real one is a few hundred characters (a resourceVersion and a pod name of at
 * most 253); sealed, two blocks are 2,764 characters, within the CRD's 4,096. A longer one is not kept in the status.
 */
export const MAX_SEALED_TOKEN = 2 * BLOCK - 2;

/** A key of this process: used when the server has no credential to derive one from. */
const PROCESS_KEY = randomBytes(32);

/**
 * The key that seals continue tokens: derived (HKDF-SHA256) from the server's credential, the same on every replica
 * and after a restart; the process's own without one.
 */
export function countKeyFrom(env: NodeJS.ProcessEnv): Buffer {
  const secret = configuredSecret(env, 'METAOPS_AUTH_TOKEN') ?? configuredSecret(env, 'METAOPS_BASIC_AUTH');
  if (!secret) return PROCESS_KEY;
  return Buffer.from(hkdfSync('sha256', secret, 'metaops', 'podbuggertool countProgress.continue', 32));
}

/** What a sealed token is bound to: the tool (a token of another tool, or of another spec, does not open). */
function boundTo(tool: KubeObject): Buffer {
  const m = tool.metadata;
  return Buffer.from(JSON.stringify([m.namespace ?? 'default', m.name ?? '', m.uid ?? '', m.generation ?? 0]));
}

/**
 * The token sealed for the tool's status, or undefined when it is longer than MAX_SEALED_TOKEN. The same token of the
 * same tool seals to the same text (its IV is a MAC of both), so a count that does not move writes no new status.
 */
export function sealToken(key: Buffer | undefined, tool: KubeObject, token: string): string | undefined {
  const k = key ?? PROCESS_KEY;
  const plain = Buffer.from(token, 'utf8');
  if (plain.length > MAX_SEALED_TOKEN) return undefined;
  const padded = Buffer.alloc(Math.ceil((plain.length + 2) / BLOCK) * BLOCK);
  padded.writeUInt16BE(plain.length, 0);
  plain.copy(padded, 2);
  const aad = boundTo(tool);
  const iv = createHmac('sha256', k).update(aad).update('\0').update(plain).digest().subarray(0, IV_BYTES);
  const cipher = createCipheriv('aes-256-gcm', k, iv);
  cipher.setAAD(aad);
  const body = Buffer.concat([cipher.update(padded), cipher.final()]);
  return PREFIX + Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64url');
}

/** The token a sealed text holds for this tool, or undefined when it does not open (another key, tool or spec). */
export function openToken(key: Buffer | undefined, tool: KubeObject, sealed: string): string | undefined {
  if (!sealed.startsWith(PREFIX)) return undefined;
  const raw = Buffer.from(sealed.slice(PREFIX.length), 'base64url');
  if (raw.length < IV_BYTES + TAG_BYTES + BLOCK || (raw.length - IV_BYTES - TAG_BYTES) % BLOCK !== 0) return undefined;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key ?? PROCESS_KEY, raw.subarray(0, IV_BYTES));
    decipher.setAAD(boundTo(tool));
    decipher.setAuthTag(raw.subarray(IV_BYTES, IV_BYTES + TAG_BYTES));
    const padded = Buffer.concat([decipher.update(raw.subarray(IV_BYTES + TAG_BYTES)), decipher.final()]);
    const length = padded.readUInt16BE(0);
    return length > 0 && length <= padded.length - 2 ? padded.subarray(2, 2 + length).toString('utf8') : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The key that authenticates the injector's failure records on pods (match.ts Failure, `k=`): derived as the count's
 * key is, for another use. Whoever may edit a pod may write its annotations, and sees what goes into an attempt's key
 * (the tool's uid and spec, the pod's uid): only a record whose MAC holds is one this injector wrote, and delays a
 * retry. Without a credential, the process's key: a record written by another replica, or before a restart, is none
 * there (the pod is tried at once, and its record written again).
 */
export function recordKeyFrom(env: NodeJS.ProcessEnv): Buffer {
  const secret = configuredSecret(env, 'METAOPS_AUTH_TOKEN') ?? configuredSecret(env, 'METAOPS_BASIC_AUTH');
  if (!secret) return PROCESS_KEY;
  return Buffer.from(hkdfSync('sha256', secret, 'metaops', 'podbuggertool failure record', 32));
}

/**
 * The MAC a failure record carries for one attempt (its `k=`, 8 hex digits): of the attempt's key and every field the
 * record states (reason, attempts, when), so that none can be changed, nor a record copied to another pod, tool or
 * spec. Deterministic: the same failure is always the same text (a record at rest is not written again).
 */
export function recordMac(
  key: Buffer | undefined,
  attempt: string,
  failure: { reason: string; attempts: number; at?: number | undefined },
): string {
  return createHmac('sha256', key ?? PROCESS_KEY)
    .update(JSON.stringify([attempt, failure.reason, failure.attempts, failure.at ?? null]))
    .digest('hex')
    .slice(0, 8);
}
