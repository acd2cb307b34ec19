// a-tenant36: since issue 29's governance check, customize asks Metacontroller for every NetworkPolicy of the
// parent's namespace (lib/network-policy.ts namespacePolicyRules), so each sync request of a PodSet carries them all.
// The PodSet's request bound (hooks/podset/sync.ts answerBudget.request, and the pods it makes within the body limit)
// counts the parent, its pods and its own policy, not the namespace's policies. Up to MAX_NAMESPACE_POLICIES (512)
// of them are read: the tenant's own EtcdClusters (each answers `<name>-members`, ~2-3 KB as stored) or an admin's
// policies take that room. A PodSet of the largest accepted spec (900 pods, longest image) in a namespace of 512
// such policies (EtcdClusters of 63-character names) gets sync requests of 8.50 MB, past the 8 MiB limit: each one refused 413, nothing it owns made again, no status written.
//
// Must hold: a PodSet the hook accepts and has made gets sync requests within the body limit whatever the namespace's
// NetworkPolicies (up to the number it reads), or the spec is refused / its pods limited with a status saying why.
import t from 'tap';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';
import { memberNetworkPolicy } from '../../hooks/etcdcluster/network.js';
import { FIXED_NOW, objectMap } from '../fixtures/requests.js';
import { applied, podsetRounds, podsetSyncRequest, sentBytes } from '../fixtures/stored-objects.js';
import { largest } from './largest.js';
import { podsetRequest } from './syncs.js';

const NP = 'NetworkPolicy.networking.k8s.io/v1';

for (const spec of [largest['podset']!.spec, { size: 1000, image: 'busybox:1.36', command: ['sleep', '3600'] }])
  t.test(
    `PodSet of ${(spec as any).size} pods of ${(spec as any).image.length}-char image beside 512 EtcdClusters of its namespace: sync requests within the limit`,
    async (t) => {
      const req = podsetRequest(spec);
      const ns = req.parent.metadata.namespace!;
      const policies: KubeObject[] = [];
      for (let i = 0; i < 512; i++) {
        const cluster = {
          apiVersion: 'etcd.database.coreos.com/v1beta2',
          kind: 'EtcdCluster',
          metadata: { name: `${'e'.repeat(59)}${String(i).padStart(4, '0')}`, namespace: ns, uid: `0000-uid-${i}` },
          spec: { size: 1 },
        } as unknown as ParentObject;
        policies.push(applied(memberNetworkPolicy(cluster, {}, true)!, cluster, i));
      }
      const related = objectMap(policies, 'v1', [NP]);
      const withPolicies = { ...req, related: { ...(req.related ?? {}), ...related } };
      const rounds = podsetRounds(withPolicies, FIXED_NOW);
      const last = rounds.at(-1)!;
      const policyBytes = sentBytes(related);
      const { body } = podsetSyncRequest(last.parent, last.parent, last.pods);
      const bytes = sentBytes({ ...body, related: { ...body.related, ...related } });
      t.comment(`${last.pods.length} pods made; the namespace's 512 policies: ${policyBytes} bytes of each request`);
      t.ok(bytes <= DEFAULT_BODY_LIMIT, `a sync request of ${bytes} bytes, within ${DEFAULT_BODY_LIMIT}`);
    },
  );
