// a-tenant36: the DecoratorController metaops-pod-network-policy holds a deleted pods' NetworkPolicy while pods it
// selects are observed, "at the latest POLICY_KEPT_AT_DELETION_SECONDS after the policy's own deletionTimestamp (a
// deletion never waits on it for good)" (lib/policy-finalizer.ts). Its customize asks, once the policy is deleted, for
// every pod of the namespace carrying the policy's matchLabels, with no bound on how many; its finalize request then
// carries them all. A Memcached's policy selects every pod of its Deployment, and a tenant may ask for 1000 of them
// (schema maximum; 1500 at once mid-rollout) - the Memcached itself knows they do not fit (podsListed: its customize
// stops asking for them), the decorator does not. Past the body limit (8 MiB) the finalize is refused 413 unread,
// at every retry: the 120 s bound is never applied, Metacontroller's finalizer stays on the policy for good, the
// Memcached (deleted with --cascade=foreground) stays Terminating and so does its namespace's deletion.
//
// Must hold: a deleted pods' policy is released at most 120 s after its deletion however many pods it selects: the
// decorator's finalize request stays answerable (customize asks for no more pods than fit), and past the bound the
// answer is `finalized: true`.
import t from 'tap';
import { buildApp } from '../../lib/app.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { LAST_APPLIED } from '../../lib/index.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { Metrics } from '../../lib/metrics.js';
import { podNetworkPolicy } from '../../hooks/podpolicy/index.js';
import { deployment, podsAtOnce, podsListed } from '../../hooks/memcached/sync.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';
import { memcachedSync } from '../fixtures/hooks.js';
import { withIstioSidecar } from '../fixtures/sidecars.js';
import { sentBytes, storedPod } from '../fixtures/stored-objects.js';

const TOKEN = 'a-token-of-some-length-for-tests';

function deploymentPod(parent: ParentObject, template: any, i: number, istio: boolean): KubeObject {
  const name = `${parent.metadata.name}-6d5f7c9b8-${String(i).padStart(5, 'x')}`;
  const pod: KubeObject = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: parent.metadata.namespace,
      labels: { ...template.metadata.labels, 'pod-template-hash': '6d5f7c9b8' },
    },
    spec: template.spec,
  };
  const stored = storedPod(pod, parent, i) as any;
  delete stored.metadata.annotations[LAST_APPLIED];
  stored.metadata.ownerReferences = [
    {
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      name: `${parent.metadata.name}-6d5f7c9b8`,
      uid: 'rs-uid',
      controller: true,
      blockOwnerDeletion: true,
    },
  ];
  return istio ? withIstioSidecar(stored) : stored;
}

for (const istio of [false, true])
  t.test(
    `a Memcached of 1000 mid-rollout${istio ? ' (Istio injected)' : ''}: its policy released 120 s after deletion`,
    async (t) => {
      const req = request('memcached', {
        size: 1000,
        image: 'memcached:1.6.38-alpine',
        port: 11211,
        progressDeadlineSeconds: 600,
      });
      const parent = {
        ...req.parent,
        metadata: { ...req.parent.metadata, name: 'cache', namespace: 'team-a' },
      } as ParentObject;
      const spec = { size: 1000, image: 'memcached:1.6.38-alpine', port: 11211, progressDeadlineSeconds: 600 };
      parent.spec = spec;
      t.notOk(podsListed(parent, spec), 'the Memcached itself does not ask for its pods: they do not fit');
      const answer = memcachedSync({ ...req, parent }, FIXED_NOW) as any;
      const policy = answer.children.find((c: any) => c.kind === 'NetworkPolicy');
      t.ok(policy, 'its policy');
      const deletedAt = new Date(FIXED_NOW.getTime() - 130_000).toISOString();
      const object = {
        ...asObserved(policy),
        metadata: {
          ...asObserved(policy).metadata,
          namespace: 'team-a',
          deletionTimestamp: deletedAt,
          finalizers: ['metacontroller.io/decoratorcontroller-metaops-pod-network-policy'],
        },
      };
      const rules = podNetworkPolicy.customize!(
        { controller: {}, parent: object } as never,
        {} as never,
      ).relatedResources;
      t.comment(`customize asks for: ${JSON.stringify(rules)}`);
      const template = (deployment(parent, spec)['spec'] as any).template;
      const pods = Array.from({ length: podsAtOnce(1000) }, (_, i) => deploymentPod(parent, template, i, istio));
      const body = {
        controller: {
          apiVersion: 'metacontroller.k8s.io/v1alpha1',
          kind: 'DecoratorController',
          metadata: { name: 'metaops-pod-network-policy' },
        },
        object,
        attachments: {},
        related: objectMap(pods),
        finalizing: true,
      };
      const bytes = sentBytes(body);
      t.comment(
        `${pods.length} pods of ~${sentBytes(pods[0])} bytes: finalize request of ${bytes} bytes (limit ${DEFAULT_BODY_LIMIT})`,
      );
      const app = buildApp({
        operators: [podNetworkPolicy],
        metrics: new Metrics(false),
        auth: { bearer: TOKEN },
        services: { clock: { now: () => FIXED_NOW } } as any,
      });
      t.teardown(() => app.close());
      const res = await app.inject({
        method: 'POST',
        url: '/hooks/pod-network-policy/finalize',
        payload: JSON.stringify(body),
        headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      });
      t.equal(res.statusCode, 200, 'the finalize is answered', { body: res.body.slice(0, 300) });
      t.match(
        res.statusCode === 200 ? JSON.parse(res.body) : {},
        { finalized: true },
        'released: 130 s after its deletion',
      );
    },
  );
