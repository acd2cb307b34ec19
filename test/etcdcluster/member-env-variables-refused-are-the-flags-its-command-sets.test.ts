// The variables spec.pod.etcdEnv may not name (members.ts shadowedVariables, refused in index.ts) are exactly those etcd
// reads for the flags a member's command sets, in any variant of it (TLS or not, new or existing member), each with its
// flag: nothing else of the command line (the binary itself is no flag), and the metrics listener only from etcd 3.3.
import t from 'tap';
import { shadowedVariables } from '../../hooks/etcdcluster/members.js';

const ALWAYS: Array<[string, string]> = [
  ['ETCD_ADVERTISE_CLIENT_URLS', '--advertise-client-urls'],
  ['ETCD_CERT_FILE', '--cert-file'],
  ['ETCD_CLIENT_CERT_AUTH', '--client-cert-auth'],
  ['ETCD_DATA_DIR', '--data-dir'],
  ['ETCD_INITIAL_ADVERTISE_PEER_URLS', '--initial-advertise-peer-urls'],
  ['ETCD_INITIAL_CLUSTER', '--initial-cluster'],
  ['ETCD_INITIAL_CLUSTER_STATE', '--initial-cluster-state'],
  ['ETCD_INITIAL_CLUSTER_TOKEN', '--initial-cluster-token'],
  ['ETCD_KEY_FILE', '--key-file'],
  ['ETCD_LISTEN_CLIENT_URLS', '--listen-client-urls'],
  ['ETCD_LISTEN_PEER_URLS', '--listen-peer-urls'],
  ['ETCD_NAME', '--name'],
  ['ETCD_PEER_CERT_FILE', '--peer-cert-file'],
  ['ETCD_PEER_CLIENT_CERT_AUTH', '--peer-client-cert-auth'],
  ['ETCD_PEER_KEY_FILE', '--peer-key-file'],
  ['ETCD_PEER_TRUSTED_CA_FILE', '--peer-trusted-ca-file'],
  ['ETCD_TRUSTED_CA_FILE', '--trusted-ca-file'],
];

const sorted = (m: Map<string, string>) => [...m.entries()].sort(([a], [b]) => a.localeCompare(b));

t.test('the variables refused are those of the flags of every variant of the command, and nothing else', async (t) => {
  t.same(
    sorted(shadowedVariables('3.5.0')),
    sorted(new Map([...ALWAYS, ['ETCD_LISTEN_METRICS_URLS', '--listen-metrics-urls']])),
    'etcd 3.5: with the metrics listener',
  );
  t.same(sorted(shadowedVariables('3.2.32')), ALWAYS, 'etcd 3.2: no metrics listener');
  for (const [variable, flag] of shadowedVariables('3.6.0'))
    t.ok(/^ETCD_[A-Z_]+$/.test(variable) && /^--[a-z-]+$/.test(flag), `${variable} is the variable of ${flag}`);
});
