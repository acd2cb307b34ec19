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
  spec['ports'] = ports.map((p) => ({ name: p.name, port: p.port, targetPort: p.targetPort ?? p.name, protocol: 'TCP' }));
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
