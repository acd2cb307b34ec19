// The member pods the plan answers: on an image, without an upgrade record, started together from a snapshot.
import { asGiven, keepObserved, type KubeObject, type ParentObject } from '../../../lib/index.js';
import {
  type Cluster,
  clusterOf,
  MEMBER_IMAGE,
  MEMBER_VERSION,
  memberPod,
  peerURL,
  type RestoreSource,
} from '../members.js';
import { etcdContainerMark, IMAGE_WAITING } from '../pods.js';
import type { EtcdClusterSpec } from '../schema.js';
import {
  UPGRADE_EXITED_AT,
  UPGRADE_DOWN_AT,
  UPGRADE_SEEN_AT,
  UPGRADE_SERVED,
  UPGRADE_SERVING_CONTAINER,
  UPGRADE_SERVING_SINCE,
  UPGRADED_AT,
  UPGRADED_CONTAINER,
  UPGRADED_FROM,
  UPGRADED_FROM_IMAGE,
} from '../upgrade.js';
import { atImage } from './versions.js';

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
    ? (spec['containers'] as Array<{ name?: string; image?: string }>).map((c) => ({ ...c }))
    : undefined;
  if (spec && containers) spec['containers'] = containers;
  const container = containers?.find((c) => c.name === 'etcd') ?? containers?.[0];
  if (container) container.image = img;
  const {
    [UPGRADED_FROM]: _was,
    [UPGRADED_AT]: _at,
    [UPGRADED_FROM_IMAGE]: _image,
    [UPGRADE_EXITED_AT]: _exited,
    [UPGRADE_SERVING_SINCE]: _serving,
    [UPGRADE_SERVED]: _served,
    [UPGRADE_SERVING_CONTAINER]: _servingContainer,
    [UPGRADE_SEEN_AT]: _seen,
    [UPGRADE_DOWN_AT]: _down,
    [UPGRADED_CONTAINER]: _container,
    ...annotations
  } = copy.metadata.annotations ?? {};
  const newVersion = from !== undefined && from !== version;
  const newImage = fromImage !== undefined && !atImage(fromImage, img);
  copy.metadata.annotations = {
    ...annotations,
    [MEMBER_VERSION]: version,
    [MEMBER_IMAGE]: img,
    ...(newVersion ? { [UPGRADED_FROM]: from } : {}),
    ...(newImage ? { [UPGRADED_FROM_IMAGE]: fromImage } : {}),
    // When, and the etcd container it runs as it is moved (the observed pod's): any other reported since runs the
    // moved spec.
    ...((newVersion || newImage) && at ? { [UPGRADED_AT]: at, [UPGRADED_CONTAINER]: etcdContainerMark(pod) } : {}),
  };
  return copy;
}

/** A restored member's init steps that run this project's CLI (members.ts, restoreInitContainers). */
export const OPERATOR_STEPS: ReadonlySet<string> = new Set(['fetch-snapshot', 'place-snapshot']);

/** An init step of a pod, as read. */
type Step = { name?: unknown; image?: unknown; command?: unknown };

/** A restored member's init step that runs the member's etcd image (members.ts, restoreInitContainers). */
export const ETCD_STEP = 'restore-snapshot';

/**
 * A restored member's pod whose restore steps wait for their image (ErrImagePull, ImagePullBackOff): they run again
 * whenever the pod's sandbox is recreated (a node reboot, a runtime restart), on the images of restore time, which a
 * metaops upgrade (its own steps) or an etcd upgrade to another version or repository (the etcd step) may since
 * have taken from the registry or the nodes' reach. Such a pod runs no etcd (its init steps have not finished), so
 * its steps take the images of the moment: this metaops' `image` for its own steps (OPERATOR_STEPS), the
 * member's etcd container image for the etcd step (ETCD_STEP). An init step's image is the one field of it that may
 * change, and a change restarts the pod: nothing runs to be restarted. A pod whose steps finished, or wait for
 * anything else, is kept as it is: no running member restarts for a new image. (Decided on the observed pod, which
 * has a status; applied to its copy `pod`.)
 */
export function withOperatorSteps(pod: KubeObject, observed: KubeObject, image: string | undefined): KubeObject {
  const spec = pod['spec'] as { initContainers?: unknown; containers?: unknown } | undefined;
  const steps = Array.isArray(spec?.initContainers) ? (spec.initContainers as Array<Step | null>) : [];
  const containers = Array.isArray(spec?.containers)
    ? (spec.containers as Array<{ name?: unknown; image?: unknown }>)
    : [];
  const etcdImage = containers.find((c) => c?.name === 'etcd')?.image;
  const wanted = (c: Step | null): string | undefined => {
    if (typeof c?.name !== 'string') return undefined;
    if (OPERATOR_STEPS.has(c.name)) return image;
    if (c.name === ETCD_STEP && typeof etcdImage === 'string' && toolIn(c, pod.metadata.annotations?.[MEMBER_VERSION]))
      return etcdImage;
    return undefined;
  };
  // A step is on the image wanted when it was given it, whatever digest an admission policy pinned it to (the tag
  // kept: a tag taken off names no version, and the pod records none for its steps), or runs the etcd container's
  // own pinned image (the same digest).
  const stale = (c: Step | null) => {
    const w = wanted(c);
    return w !== undefined && !(typeof c!.image === 'string' && asGiven(c!.image, w));
  };
  // Only when a step that waits for its image would take another: a step waiting for the image of the moment is
  // helped by nothing here (the image cannot be had), and the pod is left as it is.
  const waiting = stepsWaitingForImage(observed);
  if (!steps.some((c) => stale(c) && waiting.has(c!.name as string))) return pod;
  return {
    ...pod,
    spec: { ...spec, initContainers: steps.map((c) => (stale(c) ? { ...c!, image: wanted(c) } : c)) },
  };
}

/**
 * Whether the etcd step's command (made with the version of restore time: members.ts restoreTool) is in the etcd of
 * `version`: `etcdutl` from 3.5 on, `etcdctl snapshot restore` before 3.6. Not known: no.
 */
function toolIn(step: { command?: unknown }, version: string | undefined): boolean {
  const tool = Array.isArray(step.command) ? step.command[0] : undefined;
  const [major, minor] = (version ?? '').split('.').map(Number);
  if (major === undefined || minor === undefined || Number.isNaN(major) || Number.isNaN(minor)) return false;
  const at = major * 1000 + minor;
  if (tool === '/usr/local/bin/etcdutl') return at >= 3005;
  if (tool === '/usr/local/bin/etcdctl') return at < 3006;
  return false;
}

/** The pod's restore steps that wait because their image cannot be had. */
function stepsWaitingForImage(pod: KubeObject): ReadonlySet<string> {
  const statuses = (pod['status'] as { initContainerStatuses?: unknown } | undefined)?.initContainerStatuses;
  const names = new Set<string>();
  for (const s of Array.isArray(statuses) ? statuses : []) {
    const x = s as { name?: unknown; state?: { waiting?: { reason?: unknown } } } | null;
    if (typeof x?.name === 'string' && IMAGE_WAITING.has(String(x.state?.waiting?.reason))) names.add(x.name);
  }
  return names;
}

/**
 * The pod without the upgrade record and its soak: its member served the version of its image (`version`) steadily;
 * it says so (UPGRADE_SERVED) until it is moved again.
 */
export function upgradeDone(pod: KubeObject, version?: string): KubeObject {
  const {
    [UPGRADED_FROM]: _was,
    [UPGRADED_AT]: _at,
    [UPGRADED_FROM_IMAGE]: _image,
    [UPGRADE_EXITED_AT]: _exited,
    [UPGRADE_SERVING_SINCE]: _serving,
    [UPGRADE_SERVING_CONTAINER]: _servingContainer,
    [UPGRADE_SEEN_AT]: _seen,
    [UPGRADE_DOWN_AT]: _down,
    [UPGRADED_CONTAINER]: _container,
    ...annotations
  } = pod.metadata.annotations ?? {};
  if (version) annotations[UPGRADE_SERVED] = version;
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
  restore: { uid: string; name: string },
): KubeObject[] {
  const all = initialCluster(
    clusterOf(parent, spec),
    names.map((pod) => ({ pod })),
  );
  return names.map((pod) =>
    memberPod({
      parent,
      spec,
      name: pod,
      initialCluster: all,
      state: 'new',
      restore: source,
      restoreUid: restore.uid,
      restoreName: restore.name,
    }),
  );
}
