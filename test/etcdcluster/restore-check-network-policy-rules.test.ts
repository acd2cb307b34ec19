// The restore check pod's NetworkPolicy (`<cluster>-restore-check`): it selects the check pod by the labels only it
// carries, lets no one in (the check serves nothing), lets out everything but the instance metadata service, which a
// namespace the server lets use the node's credentials keeps (the check's fetch without an awsSecret asks it); none
// with METAOPS_ETCD_NETWORK_POLICY=false. Its name is one of the cluster's child names (checked as the others).
import t from 'tap';
import { etcdcluster, etcdChildNames } from '../../hooks/etcdcluster/index.js';
import { restoreCheckNetworkPolicy, type EtcdClusterSettings } from '../../hooks/etcdcluster/network.js';
import { checkPodName } from '../../hooks/etcdcluster/restore.js';
import { matchesSelector } from '../../lib/labels.js';
import { childLabels } from '../../lib/index.js';

const parent = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'e', namespace: 'ns', uid: 'u-e' },
  spec: { size: 1 },
} as any;
const settingsOf = (env: NodeJS.ProcessEnv) => etcdcluster.settings!({ env } as never) as EtcdClusterSettings;
const metadataExcepted = (policy: any) =>
  policy.spec.egress.every((rule: any) =>
    rule.to.every(
      (peer: any) =>
        !peer.ipBlock || peer.ipBlock.cidr !== '0.0.0.0/0' || peer.ipBlock.except?.includes('169.254.169.254/32'),
    ),
  );

t.test("the check pod's policy: selects only the check pod, no one in, out but the metadata service", async (t) => {
  const policy = restoreCheckNetworkPolicy(parent, settingsOf({})) as any;
  t.equal(policy.metadata.name, 'e-restore-check');
  t.ok(matchesSelector(childLabels('etcd', 'e', 'restore-check'), policy.spec.podSelector), 'selects the check pod');
  t.notOk(matchesSelector(childLabels('etcd', 'e', 'member'), policy.spec.podSelector), 'not a member');
  t.notOk(matchesSelector(childLabels('etcd', 'f', 'restore-check'), policy.spec.podSelector), "not another cluster's");
  t.same(policy.spec.policyTypes, ['Ingress', 'Egress']);
  t.equal(policy.spec.ingress, undefined, 'no ingress rule: no one in (stored so, no empty list)');
  t.ok(metadataExcepted(policy), 'the metadata service excepted');
  t.ok(
    policy.spec.egress[0].to.some(
      (p: any) => p.ipBlock?.cidr === '::/0' && p.ipBlock.except.includes('fd00:ec2::254/128'),
    ),
  );
});

t.test(
  "a namespace the server lets use the node's credentials keeps the metadata service; the setting off: none",
  async (t) => {
    t.notOk(
      metadataExcepted(restoreCheckNetworkPolicy(parent, settingsOf({ METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'ns' }))),
    );
    t.ok(metadataExcepted(restoreCheckNetworkPolicy(parent, settingsOf({ METAOPS_BACKUP_AMBIENT_CREDENTIALS: 'b' }))));
    t.equal(restoreCheckNetworkPolicy(parent, settingsOf({ METAOPS_ETCD_NETWORK_POLICY: 'false' })), undefined);
  },
);

t.test("its name is one of the cluster's child names", async (t) => {
  t.ok(
    etcdChildNames(parent).some((c) => c.kind === 'NetworkPolicy' && c.name === checkPodName('e')),
    'NetworkPolicy e-restore-check is checked as the other child names',
  );
});
