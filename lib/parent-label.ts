// The label by which a parent asks Metacontroller for the pods its children make (Memcached's, EtcdBackup's), and its
// value: a keyed MAC (HMAC-SHA256) of the parent's kind, namespace and name, so that
// - it is the same for a parent deleted and made again under its name: Metacontroller v1.5.20 keeps a customize answer
//   by the parent's name and generation (pkg/controller/common/customize/cache.go), so a recreated parent at
//   generation 1 is handed the answer of the one before; a value by uid made that answer ask for the old uid's pods;
// - no tenant can compute it for another namespace's parent: v1.5.20 matches a changed object against a related rule
//   by labels alone (manager.go matchesRelatedRule: no namespace, no kind), so a pod of any namespace carrying a
//   value it can compute (a name, a hash of one) syncs that parent as often as it is written.
// The key is METAOPS_LABEL_KEY when set, else derived from the server's credential (METAOPS_AUTH_TOKEN, or
// METAOPS_BASIC_AUTH) with its own HKDF label, which every replica has and which outlives a restart. With neither (a
// server that serves unauthenticated callers only), the value is an unkeyed hash: stable, but computable by anyone who
// knows the kind, namespace and name (docs/operating.md says what that means on v1.5.20). Never a key of the process:
// a value that changed with each restart, or differed between replicas, would roll every Memcached's pods.
import { createHash, createHmac, hkdfSync } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { ParentObject, RelatedResourceRule } from './metacontroller.js';
import { textOf } from './objects.js';

/** The setting that gives the key; without it the key comes from the server's credential. */
export const LABEL_KEY_ENV = 'METAOPS_LABEL_KEY';
/** The shortest METAOPS_LABEL_KEY the server starts with (lib/config.ts): a shorter one can be guessed. */
export const MIN_LABEL_KEY_LENGTH = 32;
/** Hex characters of a value: 160 bits of the MAC, within a label value's 63. */
const VALUE_LENGTH = 40;
const VALUE = /^[0-9a-f]{40}$/;

/** The settings of a kind whose pods are asked for by the parent's label (`parentLabelSettings`). */
export interface ParentLabelSettings {
  /** The key of the parent label's MAC; undefined: no key configured (an unkeyed hash). */
  labelKey?: Buffer | undefined;
}

/** A secret the server is configured with (the variable, or the file its `_FILE` names), when readable and not blank. */
export function configuredSecret(env: NodeJS.ProcessEnv, name: string): string | undefined {
  const file = env[`${name}_FILE`];
  try {
    const value = file !== undefined ? readFileSync(file, 'utf8') : env[name];
    return value?.trim() || undefined;
  } catch {
    // The server's configuration check refuses to start with an unreadable file (lib/config.ts): not reached there.
    return undefined;
  }
}

/**
 * The key of the parent label's MAC: derived (HKDF-SHA256, a label of its own) from METAOPS_LABEL_KEY, else from the
 * server's credential; undefined when the server has neither.
 */
export function labelKeyFrom(env: NodeJS.ProcessEnv): Buffer | undefined {
  const secret =
    configuredSecret(env, LABEL_KEY_ENV) ??
    configuredSecret(env, 'METAOPS_AUTH_TOKEN') ??
    configuredSecret(env, 'METAOPS_BASIC_AUTH');
  if (!secret) return undefined;
  return Buffer.from(hkdfSync('sha256', secret, 'metaops', 'parent label of related pods', 32));
}

/** A kind's settings: the parent label's key, read once per server. */
export function parentLabelSettings({ env }: { env: NodeJS.ProcessEnv }): ParentLabelSettings {
  return { labelKey: labelKeyFrom(env) };
}

/** What the server's start-up log says when no key is configured (main/operators.ts configWarnings). */
export function parentLabelWarnings(env: NodeJS.ProcessEnv): string[] {
  if (labelKeyFrom(env)) return [];
  return [
    `neither ${LABEL_KEY_ENV} nor a credential (METAOPS_AUTH_TOKEN, METAOPS_BASIC_AUTH) is set: the label by which ` +
      'Memcached and EtcdBackup ask for their pods is an unkeyed hash of kind, namespace and name, which anyone can ' +
      'compute; on Metacontroller v1.5.20 a pod of another namespace carrying it syncs that parent (docs/operating.md)',
  ];
}

/**
 * The parent label's value for a parent of `kind` named `name` in `namespace`: 40 hex characters of HMAC-SHA256(key,
 * `["<kind>","<namespace>","<name>"]`), or of an unkeyed SHA-256 without a key.
 */
export function parentLabelValue(key: Buffer | undefined, kind: string, namespace: string, name: string): string {
  // As a JSON list: no two triples give one text, whatever characters a name holds.
  const text = JSON.stringify([kind, namespace, name]);
  const digest = key
    ? createHmac('sha256', key).update(text).digest('hex')
    : createHash('sha256').update(`metaops unkeyed parent label\0${text}`).digest('hex');
  return digest.slice(0, VALUE_LENGTH);
}

/** The value for a parent as stored (its kind, namespace and name read by type); '' for a parent without a name. */
export function parentLabelOf(settings: ParentLabelSettings | undefined, parent: ParentObject): string {
  const name = textOf(parent.metadata?.name);
  if (!name) return '';
  return parentLabelValue(settings?.labelKey, textOf(parent.kind), textOf(parent.metadata?.namespace), name);
}

/**
 * The status field a kind's sync keeps: the parent label's value every pod whose state it reads carries (set once the
 * children made with the current value have replaced the pods made before it).
 */
export const PODS_LABEL = 'podsLabel';

/** The parent's status as stored: an object, else none (as lib/hook.ts reads it; not imported: config imports this). */
function statusOf(parent: ParentObject): Record<string, unknown> {
  const status = parent.status;
  return status && typeof status === 'object' ? (status as Record<string, unknown>) : {};
}

/** The value the parent's status records in PODS_LABEL, when it has the shape of one; else undefined. */
export function recordedPodsLabel(parent: ParentObject): string | undefined {
  const value = statusOf(parent)[PODS_LABEL];
  return typeof value === 'string' && VALUE.test(value) ? value : undefined;
}

/**
 * The rules that ask Metacontroller for the pods a parent's children make, by the parent label (`label`, carrying
 * `value`: parentLabelOf) on the pod templates of its children. Besides it:
 * - the value the status records (PODS_LABEL), when it is another one (the key changed: the children's pods carry the
 *   old value until they are replaced);
 * - the `legacy` labels (name/instance), for a parent whose status records a sync (`observedGeneration`) but no value:
 *   a parent synced by a metaops from before the label, whose pods may lack it until its children replace them.
 * A new parent (no status yet) is asked by the value alone; a parent without a value (no name): no pods.
 */
export function relatedPodRules(
  parent: ParentObject | null | undefined,
  label: string,
  value: string,
  legacy: Record<string, string>,
): RelatedResourceRule[] {
  if (!parent || !value) return [];
  const byValue = (v: string): RelatedResourceRule => ({
    apiVersion: 'v1',
    resource: 'pods',
    labelSelector: { matchLabels: { [label]: v } },
  });
  const rules = [byValue(value)];
  const recorded = recordedPodsLabel(parent);
  if (recorded !== undefined && recorded !== value) rules.push(byValue(recorded));
  else if (recorded === undefined && statusOf(parent)['observedGeneration'] !== undefined)
    rules.push({ apiVersion: 'v1', resource: 'pods', labelSelector: { matchLabels: legacy } });
  return rules;
}

/** Whether a pod template (an observed child's `spec.template`) carries the parent label with `value`. */
export function templateLabelled(template: unknown, label: string, value: string): boolean {
  const labels = (template as { metadata?: { labels?: unknown } } | null | undefined)?.metadata?.labels;
  return (
    value !== '' &&
    labels !== null &&
    typeof labels === 'object' &&
    (labels as Record<string, unknown>)[label] === value
  );
}
