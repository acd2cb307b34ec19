// The member pods the plan answers: on an image, without an upgrade record, started together from a snapshot.
import { keepObserved, type KubeObject, type ParentObject } from '../../../lib/index.js';
import { type Cluster, clusterOf, memberPod, peerURL, type RestoreSource } from '../members.js';
import type { EtcdClusterSpec } from '../schema.js';
import { UPGRADED_AT, UPGRADED_FROM, UPGRADED_FROM_IMAGE } from '../upgrade.js';

/**
 * The pod with the etcd container on `img`. `from`: the version its member ran before (an upgrade), recorded on the
 * pod (UPGRADED_FROM) until the member serves `version`, and `fromImage` the image it ran (UPGRADED_FROM_IMAGE: a
 * change of spec.repository moves it at the same version); without them (a roll back, an unstick) the records go.
 */
export function withImage(
  pod: KubeObject,
  img: string,
  version: string,
  moved: { from?: string | undefined; fromImage?: string | undefined; at?: string | undefined } = {},
): KubeObject {
  const { from, fromImage, at } = moved;
  const copy = keepObserved(pod);
  // Copies of the spec and its containers: the observed pod (the request) is never written to.
  const spec = copy['spec'] ? { ...(copy['spec'] as Record<string, unknown>) } : undefined;
  if (spec) copy['spec'] = spec;
  const containers = Array.isArray(spec?.['containers'])
    ? (spec!['containers'] as Array<{ name?: string; image?: string }>).map((c) => ({ ...c }))
    : undefined;
  if (spec && containers) spec['containers'] = containers;
  const container = containers?.find((c) => c.name === 'etcd') ?? containers?.[0];
  if (container) container.image = img;
  const {
    [UPGRADED_FROM]: _was,
    [UPGRADED_AT]: _at,
    [UPGRADED_FROM_IMAGE]: _image,
    ...annotations
  } = copy.metadata.annotations ?? {};
  const newVersion = from !== undefined && from !== version;
  const newImage = fromImage !== undefined && fromImage !== img;
  copy.metadata.annotations = {
    ...annotations,
    'etcd.version': version,
    ...(newVersion ? { [UPGRADED_FROM]: from } : {}),
    ...(newImage ? { [UPGRADED_FROM_IMAGE]: fromImage } : {}),
    ...((newVersion || newImage) && at ? { [UPGRADED_AT]: at } : {}),
  };
  return copy;
}

/** The pod without the upgrade record: its member served the version of its image. */
export function upgradeDone(pod: KubeObject): KubeObject {
  const {
    [UPGRADED_FROM]: _was,
    [UPGRADED_AT]: _at,
    [UPGRADED_FROM_IMAGE]: _image,
    ...annotations
  } = pod.metadata.annotations ?? {};
  return { ...pod, metadata: { ...pod.metadata, annotations } };
}

export function initialCluster(c: Cluster, members: Array<{ pod: string }>): string {
  return members.map((m) => `${m.pod}=${peerURL(c, m.pod)}`).join(',');
}

/** The members of a restore, all started together from its snapshot. */
export function restoredMembers(
  parent: ParentObject,
  spec: EtcdClusterSpec,
  names: string[],
  source: RestoreSource,
  restoreUid: string,
): KubeObject[] {
  const all = initialCluster(
    clusterOf(parent, spec),
    names.map((pod) => ({ pod })),
  );
  return names.map((pod) =>
    memberPod({ parent, spec, name: pod, initialCluster: all, state: 'new', restore: source, restoreUid }),
  );
}
