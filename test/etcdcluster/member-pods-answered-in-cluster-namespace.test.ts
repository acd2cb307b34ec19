// A running EtcdCluster answers its member pods from what Metacontroller last applied to each (the last-applied
// annotation, lib/objects.ts keepObserved), at every sync. The annotation is text the tenant who may edit its own
// pods writes; Metacontroller (v4.17.2) creates a desired child in the namespace the answer names, with its own
// rights. A member pod whose annotation names another namespace (tenant B's) must still be answered in the
// cluster's own namespace: no spec change, no trigger but a resync.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { LAST_APPLIED } from '../../lib/objects.js';
import { running } from '../fixtures/etcd-loop.js';

t.test(
  "a running cluster's member pods are answered in its own namespace whatever their annotation says",
  async (t) => {
    const loop = await running({ size: 3 });
    const namespace = loop.parent().metadata.namespace!;
    const pod = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-1')!;
    const forged = structuredClone(pod) as KubeObject & { spec: Record<string, unknown> };
    forged.metadata.namespace = 'team-b';
    forged.spec = { ...forged.spec, serviceAccountName: 'b-admin' };
    pod.metadata.annotations = { ...(pod.metadata.annotations ?? {}), [LAST_APPLIED]: JSON.stringify(forged) };
    const res = await loop.step();
    t.same(
      res.children
        .filter((c) => c.metadata.namespace !== undefined && c.metadata.namespace !== namespace)
        .map((c) => `${c.kind} ${c.metadata.namespace}/${c.metadata.name}`),
      [],
      `every child in ${namespace}`,
    );
  },
);
