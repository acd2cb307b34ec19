// keepObserved answers an observed child as Metacontroller last applied it. The annotation it reads is written by
// whoever may edit the child (the tenant, in its own namespace); Metacontroller creates a desired child in the
// namespace the answer names. The kept form is always in the observed object's own namespace.
import t from 'tap';
import { keepObserved, LAST_APPLIED } from '../../lib/objects.js';
import type { KubeObject } from '../../lib/metacontroller.js';

t.test("keepObserved never answers a child in another namespace than the observed one's", async (t) => {
  const applied: KubeObject = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'data-credentials', namespace: 'team-a', labels: { app: 's3' } },
    data: { key: 'YQ==' },
  } as KubeObject;
  for (const forged of [{ namespace: 'team-b' }, { namespace: 'kube-system' }]) {
    const observed = structuredClone(applied);
    observed.metadata.uid = 'u';
    observed.metadata.annotations = {
      [LAST_APPLIED]: JSON.stringify({ ...applied, metadata: { ...applied.metadata, ...forged } }),
    };
    t.equal(keepObserved(observed).metadata.namespace, 'team-a', `annotation naming ${forged.namespace}`);
  }
});
