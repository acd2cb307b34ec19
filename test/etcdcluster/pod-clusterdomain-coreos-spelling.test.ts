// coreos compatibility where users read it (issue 30): etcd-operator's PodPolicy spells the cluster domain
// `ClusterDomain` (json:"ClusterDomain", pkg/apis/etcd/v1beta2/cluster.go), and its users' YAML says
// `pod: {ClusterDomain: cluster.local}`. The issue asks for `pod.ClusterDomain` to be accepted: the CRD must keep
// the field (a structural schema prunes an unknown one without a word), and the hook must honour it as it honours
// `clusterDomain`: the member URLs end in the domain, as etcd-operator's did.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import YAML from 'yaml';
import type { EtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { etcdSettings } from '../../hooks/etcdcommon/index.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { parser } from '../../hooks/etcdcluster/sync.js';
import type { CompositeSyncResponse } from '../../lib/metacontroller.js';
import { runHook } from '../../lib/operator.js';
import { FakeEtcd, GROUPS, Loop } from '../fixtures/etcd-loop.js';
import { etcdParent, etcdPod } from '../fixtures/etcd.js';
import { FIXED_NOW, objectMap, root } from '../fixtures/requests.js';

t.test("the CRD keeps etcd-operator's spec.pod.ClusterDomain", async (t) => {
  const crd = YAML.parse(
    readFileSync(join(root, 'manifests', 'crds', 'etcdclusters.etcd.database.coreos.com.yaml'), 'utf8'),
  );
  const pod = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pod;
  t.ok(
    pod.properties.ClusterDomain || pod['x-kubernetes-preserve-unknown-fields'],
    'spec.pod.ClusterDomain is not pruned by the API server',
  );
});

t.test('spec.pod.ClusterDomain, as etcd-operator spells it, is used in the member URLs', async (t) => {
  const loop = new Loop({ size: 1, pod: { ClusterDomain: 'cluster.local' } }, new FakeEtcd());
  await loop.step();
  const pod = loop.children.find((c) => c.kind === 'Pod') as any;
  t.ok(pod, 'a member is started');
  const command: string[] = pod?.spec.containers[0].command ?? [];
  t.ok(
    command.includes('--initial-advertise-peer-urls=http://e-0.e.ns.svc.cluster.local:2380'),
    `the member's peer URL names the domain (${command.find((a) => a.startsWith('--initial-advertise')) ?? 'none'})`,
  );
});

const condition = (res: CompositeSyncResponse, type: string) =>
  ((res.status as any)?.conditions ?? []).find((c: any) => c.type === type);

/** A sync of a running cluster of three whose spec.pod is `pod`, under the server's environment `env`. */
function syncWith(pod: Record<string, unknown>, env: NodeJS.ProcessEnv = {}) {
  const calls: string[] = [];
  const etcd = new Proxy({} as EtcdClient, {
    get: (_o, m) => (m === 'scoped' || m === 'withSignal' ? undefined : async () => (calls.push(String(m)), {})),
  });
  const request = {
    controller: {},
    parent: etcdParent({ size: 3, pod }, { phase: 'Running', lastMemberIndex: 2 }),
    children: objectMap([etcdPod(0), etcdPod(1), etcdPod(2)], 'v1', GROUPS),
  };
  return runHook(etcdcluster, 'sync', request as any, {
    now: FIXED_NOW,
    clients: { etcd: () => etcd },
    settings: etcdSettings({ env }),
  }).then((res) => ({ res, calls }));
}

t.test('spec.pod.ClusterDomain goes through the same tenancy rule as clusterDomain', async (t) => {
  for (const domain of ['nip.io', 'evil.example', '.wildcard.test']) {
    const { res, calls } = await syncWith({ ClusterDomain: domain });
    t.same(calls, [], `${domain}: nothing dialled`);
    t.same(
      res.children.filter((c) => c.kind === 'Pod').map((p) => p.metadata.name),
      ['e-0', 'e-1', 'e-2'],
      `${domain}: the pods kept as they are`,
    );
    t.match(condition(res, 'Synced'), {
      status: 'False',
      reason: 'ClusterDomainNotAllowed',
      message: new RegExp(
        `^spec\\.pod\\.ClusterDomain "${domain.replace(/\./g, '\\.')}" is not a domain this server dials`,
      ),
    });
  }
  t.ok((await syncWith({ ClusterDomain: 'cluster.local' })).calls.length > 0, 'the server’s own domain is dialled');
  t.ok(
    (await syncWith({ ClusterDomain: '.corp.example' }, { METAOPS_ETCD_CLUSTER_DOMAINS: 'corp.example' })).calls
      .length > 0,
    'a domain the server allows is dialled',
  );
});

t.test('clusterDomain and ClusterDomain both set: the same domain is taken, different ones refused', async (t) => {
  const same = await syncWith({ clusterDomain: 'cluster.local', ClusterDomain: '.cluster.local' });
  t.ok(same.calls.length > 0, 'one domain, written twice: dialled');
  t.notMatch(condition(same.res, 'Synced') ?? {}, { status: 'False' });
  for (const [lower, upper] of [
    ['cluster.local', 'evil.example'],
    ['evil.example', 'cluster.local'],
    ['corp.example', 'cluster.local'],
  ]) {
    const { res, calls } = await syncWith(
      { clusterDomain: lower, ClusterDomain: upper },
      { METAOPS_ETCD_CLUSTER_DOMAINS: 'corp.example' },
    );
    t.same(calls, [], `${lower} / ${upper}: nothing dialled`);
    t.match(
      (res.status as any).conditions.find((c: any) => c.status === 'False' && c.reason === 'InvalidSpec'),
      {
        message: new RegExp(
          `spec\\.pod\\.clusterDomain "${lower}" and spec\\.pod\\.ClusterDomain "${upper}" .* differ: set one of them`,
        ),
      },
      `${lower} / ${upper}: refused, saying both`,
    );
    t.same(
      res.children.filter((c) => c.kind === 'Pod').map((p) => p.metadata.name),
      ['e-0', 'e-1', 'e-2'],
      'the pods kept as they are',
    );
  }
});

t.test('spec.pod.ClusterDomain must be a DNS name, in the CRD and in the hook', async (t) => {
  const crd = YAML.parse(
    readFileSync(join(root, 'manifests', 'crds', 'etcdclusters.etcd.database.coreos.com.yaml'), 'utf8'),
  );
  const field = crd.spec.versions[0].schema.openAPIV3Schema.properties.spec.properties.pod.properties.ClusterDomain;
  t.equal(field.maxLength, 200);
  const pattern = new RegExp(field.pattern);
  t.ok(pattern.test('cluster.local'));
  t.notOk(pattern.test('x@127.0.0.1:1/internal'), 'no URL through the CRD');
  const parsed = parser.parse({ size: 1, pod: { ClusterDomain: 'x@127.0.0.1:1/internal' } });
  t.equal(parsed.ok, false, 'nor through the hook');
});
