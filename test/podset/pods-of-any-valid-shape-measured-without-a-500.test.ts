// The PodSet sync measures a few of the pods it sees (hooks/podset/measure.ts) for what they carry beyond what the
// hook answered. Observed pods are the request's data: valid JSON of any shape must be answered, never a 500 (the
// framework's rule, test/lib/framework-on-doubt.test.ts: a namespace `{"toString": 1}` once made a 500). The measure
// keeps the service account's volume by `String(volume.name)`, which throws on `{"toString": 1}`: the whole sync is
// then a 500, the PodSet never synced again while that pod is observed.
import t from 'tap';
import { testApp } from '../fixtures/app.js';
import { example, FIXED_NOW } from '../fixtures/requests.js';

const odd = { toString: 1 };

t.test('a pod whose volume, container or label holds an object where text is due: the sync is answered', async (t) => {
  const app = testApp({ services: { now: () => FIXED_NOW } } as never);
  t.teardown(() => app.close());
  const podset = example('podset-sync') as any;
  const name = `${podset.parent.metadata.name}-pod-0`;
  const shapes: Array<[string, (pod: any) => void]> = [
    ['a volume named by an object', (pod) => (pod.spec.volumes = [{ name: odd }])],
    ['a volume mount path that is an object', (pod) => (pod.spec.containers[0].volumeMounts = [{ mountPath: odd }])],
    ['a container named by an object', (pod) => (pod.spec.containers = [{ name: odd }])],
    ['a label that is an object', (pod) => (pod.metadata.labels = { a: odd })],
  ];
  for (const [what, shape] of shapes) {
    const pod: any = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name, namespace: podset.parent.metadata.namespace, labels: {} },
      spec: { containers: [{ name: 'busybox', image: 'busybox:1.36' }] },
      status: { phase: 'Running' },
    };
    shape(pod);
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/podset/sync',
      payload: { ...podset, children: { 'Pod.v1': { [name]: pod } } },
    });
    t.not(res.statusCode, 500, `${what}: answered ${res.statusCode}`);
  }
});
