// The storage class a claim a custom resource asks for names: whether it binds volumes someone made beforehand.
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
 * Why a claim of `name` (its `field`) is not made unless the server allows static binding: "" (no class), a class
 * of pre-made volumes (NO_PROVISIONER), or a class the request does not carry (not created yet, or not sent by
 * Metacontroller: a claim of a class with no StorageClass binds any PersistentVolume that names the class, whoever
 * made it; nothing is made on doubt). Absent (the default class) is never refused.
 */
export function claimClassProblem(
  field: string,
  name: unknown,
  related: ObjectMap | null | undefined,
  allowStatic: boolean | undefined,
): string | undefined {
  if (allowStatic || typeof name !== 'string') return undefined;
  if (name === '') return staticVolumeRefusal(field);
  const quoted = JSON.stringify(name);
  const allow = `a cluster admin may allow static binding with ${STATIC_VOLUMES_ENV}=true`;
  const found = observedNamed(related, 'StorageClass', 'storage.k8s.io/v1', name);
  if (!found)
    return `${field} ${quoted}: no StorageClass of that name was found (not created yet, or not yet sent by Metacontroller); a claim of a class that does not exist binds any pre-made PersistentVolume naming it, whoever made it, so nothing is made until the class exists (${allow})`;
  if ((found as { provisioner?: unknown }).provisioner === NO_PROVISIONER)
    return `${field} ${quoted} is not allowed: its volumes are made beforehand (provisioner ${NO_PROVISIONER}), and a claim of it binds any Available PersistentVolume of the class that fits, whoever it was made for; name a class that provisions volumes, or leave the field out for the default one (${allow})`;
  return undefined;
}
