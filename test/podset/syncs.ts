// What the PodSet tests of pods as stored share (test/podset/rollout-*, sync-request-within-body-limit-*): PodSet
// `web` in namespace `shop`, its pods as Istio's sidecar injector stores them, and reads of an answer.
import type {
  CompositeSyncRequest,
  CompositeSyncResponse,
  KubeObject,
  ParentObject,
} from '../../lib/metacontroller.js';
import { request } from '../fixtures/requests.js';
import { withIstioSidecar } from '../fixtures/sidecars.js';
import { storedPod } from '../fixtures/stored-objects.js';

/** busybox sleeping: the pods' template. */
export const BUSYBOX = { image: 'busybox:1.36', command: ['sleep', '3600'] };

/** The sync request of PodSet `web` in namespace `shop` of this spec, no pod observed. */
export function podsetRequest(spec: Record<string, unknown>): CompositeSyncRequest {
  const req = request('podset', spec);
  req.parent.metadata = { ...req.parent.metadata, name: 'web', namespace: 'shop' };
  return req;
}

/** A pod stored as its kubelet reports it, with Istio's sidecar injected (test/fixtures/sidecars.ts). */
export const injected = (pod: KubeObject, parent: ParentObject, i: number) =>
  withIstioSidecar(storedPod(pod, parent, i));

/** The pods an answer names. */
export const podsOf = (res: CompositeSyncResponse) => res.children.filter((c) => c.kind === 'Pod');

/** The condition `type` of an answer's status. */
export const conditionOf = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any).conditions as Array<Record<string, unknown>>).find((c) => c['type'] === type);

/** PodSet `parent` at generation 2, its spec changed (a rollout). */
export const rolledOut = (parent: ParentObject, spec: Record<string, unknown>, status?: unknown) =>
  ({
    ...parent,
    metadata: { ...parent.metadata, generation: 2 },
    spec,
    ...(status === undefined ? {} : { status }),
  }) as ParentObject;
