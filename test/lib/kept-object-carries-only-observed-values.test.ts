// keepObserved (lib/objects.ts) answers a child kept as it is. Metacontroller applies what a hook answers (every
// field named is set on the object: pkg/dynamic/apply/apply.go merge), and the last-applied annotation the answer is
// shaped by is text the tenant may write on its own children. So the kept answer takes only the annotation's shape:
// every value in it is the observed object's. A tenant who rewrites the annotation (B's ServiceAccount, a hostPath,
// privileged, a Secret's data, a Service's selector) gets none of it answered; an honest annotation is answered as it
// is (the observed object has every value Metacontroller applied, and more the API server added).
import t from 'tap';
import { keepObserved, LAST_APPLIED } from '../../lib/objects.js';
import type { KubeObject } from '../../lib/metacontroller.js';

const applied = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'e-1', namespace: 'team-a', labels: { app: 'etcd' } },
  spec: {
    containers: [
      {
        name: 'etcd',
        image: 'etcd:3.6',
        command: ['etcd', '--name', 'e-1'],
        ports: [{ name: 'client', containerPort: 2379 }],
        volumeMounts: [{ name: 'data', mountPath: '/var/lib/etcd' }],
        resources: { limits: { cpu: '1000m' } },
      },
    ],
    volumes: [{ name: 'data', persistentVolumeClaim: { claimName: 'data-e-1' } }],
    tolerations: [{ key: 'dedicated', operator: 'Equal', value: 'etcd', effect: 'NoSchedule' }],
  },
};

/** The pod as the API server stores it: defaults, the token volume and default tolerations added, cpu normalised. */
function live(annotation: unknown): KubeObject {
  const pod = structuredClone(applied) as any;
  pod.metadata = {
    ...pod.metadata,
    uid: 'u',
    resourceVersion: '9',
    annotations: { [LAST_APPLIED]: JSON.stringify(annotation) },
  };
  const c = pod.spec.containers[0];
  c.imagePullPolicy = 'IfNotPresent';
  c.ports[0].protocol = 'TCP';
  c.resources.limits.cpu = '1';
  c.volumeMounts.push({ name: 'kube-api-access-x', mountPath: '/var/run/secrets/kubernetes.io/serviceaccount' });
  pod.spec.volumes.push({ name: 'kube-api-access-x', projected: { sources: [] } });
  pod.spec.tolerations.push({ key: 'node.kubernetes.io/not-ready', operator: 'Exists', effect: 'NoExecute' });
  pod.spec.serviceAccountName = 'default';
  pod.spec.nodeName = 'node-1';
  pod.status = { phase: 'Running' };
  return pod as KubeObject;
}

t.test('an honest annotation is answered as it is, with the values the object has', async (t) => {
  const kept = keepObserved(live(applied));
  const expected = structuredClone(applied) as any;
  expected.spec.containers[0].resources.limits.cpu = '1'; // the object's value, as the API server normalised it
  t.same(kept, expected);
  t.same(keepObserved(live(applied)), kept, 'the same observed object, the same answer');
});

t.test('a rewritten annotation carries none of its values into the answer', async (t) => {
  const forged = structuredClone(applied) as any;
  forged.apiVersion = 'v2';
  forged.metadata.namespace = 'team-b';
  forged.metadata.labels = { app: 'other' };
  forged.metadata.ownerReferences = [{ uid: 'b' }];
  forged.spec.serviceAccountName = 'b-admin';
  forged.spec.hostNetwork = true;
  const c = forged.spec.containers[0];
  c.image = 'evil';
  c.command = ['sh', '-c', 'cat /var/run/secrets/kubernetes.io/serviceaccount/token'];
  c.securityContext = { privileged: true };
  c.ports = [{ name: 'client', containerPort: 2379, hostPort: 2379 }];
  c.volumeMounts.push({ name: 'root', mountPath: '/host' });
  forged.spec.volumes = [
    { name: 'data', hostPath: { path: '/' } },
    { name: 'root', hostPath: { path: '/' } },
  ];
  forged.spec.tolerations.push({ operator: 'Exists' });
  forged.spec.containers.push({ name: 'side', image: 'evil' });
  const kept = keepObserved(live(forged)) as any;
  t.equal(kept.apiVersion, 'v1');
  t.equal(kept.metadata.namespace, 'team-a', 'its own namespace');
  t.same(kept.metadata.labels, { app: 'etcd' });
  t.notOk('ownerReferences' in kept.metadata);
  t.equal(kept.spec.serviceAccountName, 'default', "the object's ServiceAccount, not B's");
  t.notOk('hostNetwork' in kept.spec);
  t.same(kept.spec.containers.length, 1, 'no container the object does not run');
  const k = kept.spec.containers[0];
  t.equal(k.image, 'etcd:3.6');
  t.same(k.command, ['etcd', '--name', 'e-1']);
  t.notOk('securityContext' in k);
  t.same(k.ports, [{ name: 'client', containerPort: 2379 }]);
  t.same(
    k.volumeMounts.map((m: any) => m.mountPath),
    ['/var/lib/etcd'],
  );
  t.same(
    kept.spec.volumes,
    [{ name: 'data' }],
    'the volume named in the object, without the hostPath it does not have',
  );
  // A list Metacontroller replaces whole: each element answered is one of the object's, whole (the forged toleration
  // without a key, which tolerates every taint, fits into the object's not-ready one: that one is answered).
  const liveTolerations = (live(forged) as any).spec.tolerations;
  t.same(kept.spec.tolerations, liveTolerations.slice(0, 2), "the object's own tolerations, each whole");
  t.notOk(
    kept.spec.tolerations.some((x: any) => !('key' in x)),
    'no toleration of every taint',
  );
  t.notOk(JSON.stringify(kept).includes('evil') || JSON.stringify(kept).includes('hostPath'));
});

t.test("a Secret's data, a Service's selector: only the object's values", async (t) => {
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 's', namespace: 'team-a' },
    data: { password: 'YQ==' },
  };
  const forgedSecret = { ...secret, data: { password: 'Yg==', more: 'Yw==' }, stringData: { x: 'y' } };
  t.same(
    keepObserved({
      ...secret,
      metadata: { ...secret.metadata, annotations: { [LAST_APPLIED]: JSON.stringify(forgedSecret) } },
    } as KubeObject),
    secret,
  );
  const service = {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'svc', namespace: 'team-a' },
    spec: { selector: { app: 'etcd', cluster: 'a' }, ports: [{ name: 'client', port: 2379 }] },
  };
  const forgedService = structuredClone(service) as any;
  forgedService.spec.selector = { app: 'etcd', cluster: 'b' };
  forgedService.spec.ports = [{ name: 'client', port: 2379, targetPort: 22 }];
  forgedService.spec.externalIPs = ['10.0.0.1'];
  t.same(
    keepObserved({
      ...service,
      metadata: { ...service.metadata, annotations: { [LAST_APPLIED]: JSON.stringify(forgedService) } },
    } as KubeObject),
    service,
  );
});

t.test("a value of another type than the object has is the object's, whole; a key `__proto__` is a key", async (t) => {
  const cm = { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'n' }, data: { a: 'b' } };
  const forged = '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"data":"x","__proto__":{"polluted":1}}';
  const kept = keepObserved({
    ...cm,
    metadata: { ...cm.metadata, annotations: { [LAST_APPLIED]: forged } },
  } as KubeObject) as any;
  t.same(
    kept.data,
    { a: 'b' },
    "the object's data, not removed (Metacontroller removes what it applied and the answer leaves out)",
  );
  t.equal(kept.polluted, undefined);
  t.equal(Object.getPrototypeOf(kept), Object.prototype);
});
