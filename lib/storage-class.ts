// The storage class a claim a custom resource asks for names: whether it binds volumes someone made beforehand.
import type { ConditionInput } from './conditions.js';
import { staticVolumeRefusal, STATIC_VOLUMES_ENV } from './config.js';
import type { ObjectMap, RelatedResourceRule } from './metacontroller.js';
import { observedNamed } from './objects.js';

/**
 * The provisioner of a class whose volumes are made beforehand (local volumes, the way Kubernetes documents them):
 * it provisions nothing, and a claim of the class binds any Available PersistentVolume of the class that fits.
 */
export const NO_PROVISIONER = 'kubernetes.io/no-provisioner';

/**
 * The customize rule for the StorageClass a claim names (cluster-scoped, by name; none for the default class or
 * for ""): a function of the spec alone, so Metacontroller's cache of customize answers per parent generation asks
 * for the class the spec of that generation names.
 */
export function storageClassRule(name: unknown): RelatedResourceRule[] {
  return typeof name === 'string' && name !== ''
    ? [{ apiVersion: 'storage.k8s.io/v1', resource: 'storageclasses', names: [name] }]
    : [];
}

/**
 * The sync and finalize hooks' version of an operator whose customize asks for the StorageClass (OperatorBase
 * `hookVersion`). Metacontroller v4.17.2 lists the class, but under version v1 it builds the request of a namespaced
 * parent from the related objects of the parent's namespace alone (`pkg/controller/common/api/v2/common.go`
 * `Convert`, L159-164): the class's group arrives empty, and a cluster naming a class waited for good
 * (`StorageClassNotSeen`). Version v2 sends it, keyed by its name. v1.5.20 has no version and sends it as it is.
 */
export const STORAGE_CLASS_HOOK_VERSION = 'v2' as const;

/**
 * Why a claim of `name` (its `field`) is refused unless the server allows static binding: "" (no class), or a class
 * of pre-made volumes (NO_PROVISIONER) among the related objects. Absent (the default class) is never refused. A
 * named class the request does not carry is not refused: only new claims wait for it (claimClassUnseen).
 */
export function claimClassProblem(
  field: string,
  name: unknown,
  related: ObjectMap | null | undefined,
  allowStatic: boolean | undefined,
): string | undefined {
  if (allowStatic || typeof name !== 'string') return undefined;
  if (name === '') return staticVolumeRefusal(field);
  const found = observedNamed(related, 'StorageClass', 'storage.k8s.io/v1', name);
  if ((found as { provisioner?: unknown } | undefined)?.provisioner === NO_PROVISIONER)
    return `${field} ${JSON.stringify(name)} is not allowed: its volumes are made beforehand (provisioner ${NO_PROVISIONER}), and a claim of it binds any Available PersistentVolume of the class that fits, whoever it was made for; name a class that provisions volumes, or leave the field out for the default one (${allowText()})`;
  return undefined;
}

/** The reason of the condition that says new claims wait for their class (ClaimsHeld, claimsHeldCondition). */
export const CLASS_NOT_SEEN = 'StorageClassNotSeen';

/**
 * Why no new claim of `name` is made: a named class the request does not carry. It does not exist (yet), or
 * Metacontroller did not send it: after metaops is upgraded to a version whose customize asks for it, Metacontroller
 * keeps its cached customize answer (v4.17.2: up to 20 minutes; v1.5.20: until the parent's generation changes). A
 * claim of a class with no StorageClass binds any PersistentVolume that names the class, whoever made it, so nothing
 * new is made on doubt; what exists (claims made before, their members) is kept as it is, never refused as an invalid
 * spec. Undefined where static binding is allowed, for "" and the default class (claimClassProblem), and once seen.
 */
export function claimClassUnseen(
  field: string,
  name: unknown,
  related: ObjectMap | null | undefined,
  allowStatic: boolean | undefined,
): string | undefined {
  if (allowStatic || typeof name !== 'string' || name === '') return undefined;
  if (observedNamed(related, 'StorageClass', 'storage.k8s.io/v1', name)) return undefined;
  return `${field} ${JSON.stringify(name)}: no StorageClass of that name was seen (not created yet, or not yet sent by Metacontroller, which keeps its customize answer from before an upgrade of metaops for a while); a claim of a class that does not exist binds any pre-made PersistentVolume naming it, whoever made it, so no new claim is made until the class is seen: the existing claims and members are kept as they are (${allowText()})`;
}

/** The condition of a parent whose new claims wait for their class (claimClassUnseen's message). */
export function claimsHeldCondition(message: string): ConditionInput {
  return { type: 'ClaimsHeld', status: true, reason: CLASS_NOT_SEEN, message };
}

function allowText(): string {
  return `a cluster admin may allow static binding with ${STATIC_VOLUMES_ENV}=true`;
}
