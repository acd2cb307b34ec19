// Builders and child rules for the objects several controllers create.
import type { ChildResourceRule } from './hook.js';
import type { KubeObject, ParentObject } from './metacontroller.js';

export interface ServicePort {
  name: string;
  port: number;
  targetPort?: string | number;
}

/**
 * A Service in the parent's namespace selecting the parent's pods. `headless` gives each member a stable DNS
 * name and publishes members before they are Ready (peers must find each other to become Ready).
 */
// eslint-disable-next-line max-params -- a Service is its parent, name, labels, selector, ports and headlessness; every caller passes all six
export function serviceChild(
  parent: ParentObject,
  name: string,
  labels: Record<string, string>,
  selector: Record<string, string>,
  ports: ServicePort[],
  options: { headless?: boolean } = {},
): KubeObject {
  const spec: Record<string, unknown> = {};
  if (options.headless) {
    spec['clusterIP'] = 'None';
    spec['publishNotReadyAddresses'] = true;
  }
  spec['selector'] = selector;
  spec['ports'] = ports.map((p) => ({
    name: p.name,
    port: p.port,
    targetPort: p.targetPort ?? p.name,
    protocol: 'TCP',
  }));
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name, namespace: parent.metadata.namespace, labels },
    spec,
  };
}

/** Services are updated in place: recreating one would change its cluster IP under its clients. */
export const serviceRule: ChildResourceRule = {
  apiVersion: 'v1',
  resource: 'services',
  updateStrategy: { method: 'InPlace' },
  why: 'Services are updated in place so that a cluster IP never changes under its clients',
};

/**
 * The pod-level security context that Pod Security `restricted` admits: a fixed non-root user (the image's own
 * where it has one), seccomp RuntimeDefault, and an fsGroup where a volume must be writable by that user.
 */
export function restrictedPodSecurity(user: number, options: { fsGroup?: number } = {}): Record<string, unknown> {
  const context: Record<string, unknown> = {
    runAsNonRoot: true,
    runAsUser: user,
    runAsGroup: user,
    seccompProfile: { type: 'RuntimeDefault' },
  };
  if (options.fsGroup !== undefined) context['fsGroup'] = options.fsGroup;
  return context;
}

/** The container-level part of Pod Security `restricted`: no privilege escalation, every capability dropped. */
export function restrictedContainerSecurity(): Record<string, unknown> {
  return { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
}
