// Which names an EtcdCluster's members are made with (identity.ts namedSpec): a new cluster's are fully qualified in
// the server's cluster domain (a relative `<pod>.<cluster>.<ns>.svc` is first looked up under namespace `svc`); a
// cluster keeps the names its members were registered with (etcd checks a joining member's --initial-cluster against
// them, and peers dial what is registered); a new TLS cluster whose member certificates carry only the relative
// names keeps those (etcd and the hook check the certificate against the name they dial).
import t from 'tap';
import { namedSpec } from '../../hooks/etcdcluster/identity.js';
import { clusterOf, memberCommand, peerURL } from '../../hooks/etcdcluster/members.js';
import { etcdParent, etcdPod, etcdSpec } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';
import { Pki } from '../fixtures/pki.js';

const parent = etcdParent({});
const spec = etcdSpec({ size: 3 });
const hostOf = (s: unknown) => new URL(peerURL(clusterOf(parent, s as never), 'e-0')).hostname;
const flags = (pod: any): string[] =>
  pod.spec.containers[0].command.filter((w: string) =>
    /^--(initial-cluster|initial-advertise-peer-urls|advertise-client-urls)=/.test(w),
  );

function qualifiedPod(): any {
  const c = clusterOf(parent, etcdSpec({ size: 3, pod: { clusterDomain: 'cluster.local' } }));
  return {
    metadata: { name: 'e-0' },
    spec: { containers: [{ name: 'etcd', command: memberCommand(c, 'e-0', '', 'new', 'u') }] },
  };
}

t.test('a new cluster names its members in the server cluster domain', async (t) => {
  t.equal(hostOf(namedSpec(spec, parent, {}, { pods: [], status: undefined })), 'e-0.e.ns.svc.cluster.local');
  t.equal(
    hostOf(namedSpec(spec, parent, { clusterDomain: 'corp.example' }, { pods: [], status: {} })),
    'e-0.e.ns.svc.corp.example',
    "the server's setting, never a fixed cluster.local",
  );
  const own = etcdSpec({ size: 3, pod: { clusterDomain: '.corp.example' } });
  t.equal(namedSpec(own, parent, {}, { pods: [], status: {} }), own, 'a domain the spec names is taken as it is');
});

t.test('a cluster keeps the names its members were made with', async (t) => {
  // A member pod of a cluster made before (relative flags): every member keeps relative names, new ones too.
  const before = [etcdPod(0), etcdPod(1)];
  t.match(flags(before[0]), [/e-0\.e\.ns\.svc:2380$/], 'a pod made before has relative URLs');
  t.equal(namedSpec(spec, parent, {}, { pods: before, status: {} }), spec);
  // The status' member list says so when the pods are gone.
  const listed = { memberList: [{ name: 'e-0', healthy: true, peerURL: 'http://e-0.e.ns.svc:2380' }] };
  t.equal(namedSpec(spec, parent, {}, { pods: [], status: listed }), spec);
  // Pods say more than a status (which may still list the members a restore replaced).
  const qualifiedPods = { pods: [qualifiedPod()], status: listed };
  t.equal(hostOf(namedSpec(spec, parent, {}, qualifiedPods)), 'e-0.e.ns.svc.cluster.local');
  // A cluster made qualified stays so, whatever certificates come later.
  const made = namedSpec(spec, parent, {}, { pods: [], status: {} });
  const c = clusterOf(parent, made);
  const pod = {
    metadata: { name: 'e-0' },
    spec: { containers: [{ name: 'etcd', command: memberCommand(c, 'e-0', '', 'new', 'u') }] },
  };
  const stale = new Pki('names-ca').issue('stale', 'etcd-peer', { san: 'DNS:*.e.ns.svc' }).cert.toString();
  t.equal(
    hostOf(namedSpec(spec, parent, {}, { pods: [pod as never], status: {}, certificates: [stale] })),
    'e-0.e.ns.svc.cluster.local',
  );
  // Something else in a status or a pod is no evidence.
  const odd = { memberList: [{ peerURL: 'not a url' }, { peerURL: 7 }, 'x'] };
  const strange = { metadata: { name: 'e-0' }, spec: { containers: [{ command: 'etcd' }, null] } };
  t.equal(hostOf(namedSpec(spec, parent, {}, { pods: [strange as never], status: odd })), 'e-0.e.ns.svc.cluster.local');
});

t.test("a new TLS cluster's names are qualified only when its member certificates carry them", async (t) => {
  const pki = new Pki('member-names-ca');
  const relative = pki.issue('rel', 'etcd', { san: 'DNS:*.e.ns.svc,DNS:e-client.ns.svc' }).cert.toString();
  const both = pki.issue('both', 'etcd', { san: 'DNS:*.e.ns.svc,DNS:*.e.ns.svc.cluster.local' }).cert.toString();
  const input = (certificates: string[]) => ({ pods: [], status: {}, certificates });
  t.equal(namedSpec(spec, parent, {}, input([relative])), spec, "etcd-operator's guide: *.<cluster>.<ns>.svc only");
  t.equal(namedSpec(spec, parent, {}, input([both, relative])), spec, 'both certificates must carry them');
  t.equal(hostOf(namedSpec(spec, parent, {}, input([both, both]))), 'e-0.e.ns.svc.cluster.local');
  t.equal(namedSpec(spec, parent, {}, input(['not a certificate'])), spec, 'a certificate that does not parse');
});

t.test('a running cluster made with relative names adds a member under relative names', async (t) => {
  // The stand-in etcd registered e-0..e-2 at relative peer URLs, and their pods say so: a cluster made before.
  const loop = await running({ size: 3 });
  const before = (w: unknown) => (typeof w === 'string' ? w.replaceAll('.svc.cluster.local', '.svc') : w);
  for (const c of loop.children)
    if (c.kind === 'Pod') (c as any).spec.containers[0].command = (c as any).spec.containers[0].command.map(before);
  loop.status = { ...loop.status, memberList: [] };
  loop.spec = { size: 4 };
  for (let i = 0; i < 4; i++) await loop.step();
  const added = loop.etcd.members.find((m) => !['e-0', 'e-1', 'e-2'].includes(m.name));
  t.ok(added, 'a member is added');
  t.same(added!.peerURLs, ['http://e-3.e.ns.svc:2380'], 'registered under the name the cluster uses');
  const pod = loop.children.find((c) => c.kind === 'Pod' && c.metadata.name === 'e-3') as any;
  t.ok(pod, 'its pod is made');
  for (const flag of flags(pod))
    for (const url of flag.slice(flag.indexOf('=') + 1).split(','))
      t.ok(new URL(url.replace(/^[^=:/]+=/, '')).hostname.endsWith('.e.ns.svc'), `${flag}: relative, as registered`);
});
