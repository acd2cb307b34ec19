// The member pods the plan answers: on an image, without an upgrade record, started together from a snapshot.
import { keepObserved, type KubeObject, type ParentObject } from '../../../lib/index.js';
import { type Cluster, clusterOf, memberPod, peerURL, type RestoreSource } from '../members.js';
import { IMAGE_WAITING } from '../pods.js';
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

/** A restored member's init steps that run this project's CLI (members.ts, restoreInitContainers). */
export const OPERATOR_STEPS: ReadonlySet<string> = new Set(['fetch-snapshot', 'place-snapshot']);

/**
 * A restored member's pod whose restore steps wait for this project's image (ErrImagePull, ImagePullBackOff): they run
 * again whenever the pod's sandbox is recreated (a node reboot, a runtime restart), on the image of restore time,
 * which a metaops upgrade since may have taken from the registry. Such a pod runs no etcd (its init steps have not
 * finished), so its steps take `image`, this metaops' (an init step's image is the one field of it that may change,
 * and a change restarts the pod: nothing runs to be restarted). A pod whose steps finished, or wait for anything
 * else, is kept as it is: no running member restarts for a new metaops. Without `image`, the pod as it is. (Decided
 * on the observed pod, which has a status; applied to its copy `pod`.)
 */
export function withOperatorSteps(pod: KubeObject, observed: KubeObject, image: string | undefined): KubeObject {
  const spec = pod['spec'] as { initContainers?: unknown } | undefined;
  const steps = Array.isArray(spec?.initContainers)
    ? (spec!.initContainers as Array<{ name?: unknown; image?: unknown } | null>)
    : [];
  const stale = (c: { name?: unknown; image?: unknown } | null) =>
    typeof c?.name === 'string' && OPERATOR_STEPS.has(c.name) && c.image !== image;
  if (!image || !steps.some(stale) || !operatorStepWaitsForImage(observed)) return pod;
  return {
    ...pod,
    spec: { ...spec, initContainers: steps.map((c) => (stale(c) ? { ...c!, image } : c)) },
  };
}

/** Whether one of the pod's restore steps that run this project's CLI waits because its image cannot be had. */
function operatorStepWaitsForImage(pod: KubeObject): boolean {
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  return (Array.isArray(statuses) ? statuses : []).some((s) => {
    const x = s as { name?: unknown; state?: { waiting?: { reason?: unknown } } } | null;
    const reason = x?.state?.waiting?.reason;
    return typeof x?.name === 'string' && OPERATOR_STEPS.has(x.name) && IMAGE_WAITING.has(String(reason));
  });
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
