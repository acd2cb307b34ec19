// The names a running cluster keeps are read from what is observed (identity.ts namedSpec): its member pods' peer URL
// flag, else its status' member list. Both are written by others (a pod's command by whoever edits the pod, the
// status by anyone with the status subresource): a word or an entry of another type is skipped, never read as a
// name and never thrown on, and the names the rest say are kept.
import t from 'tap';
import { namedSpec } from '../../hooks/etcdcluster/identity.js';
import { clusterOf, peerURL } from '../../hooks/etcdcluster/members.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';
import { Pki } from '../fixtures/pki.js';

const parent = etcdParent({});
const spec = etcdSpec({ size: 3 });
const hostOf = (s: unknown) => new URL(peerURL(clusterOf(parent, s as never), 'e-0')).hostname;
const RELATIVE = '--initial-advertise-peer-urls=http://e-0.e.ns.svc:2380';

const podWith = (command: unknown, containers?: unknown): never =>
  ({ metadata: { name: 'e-0' }, spec: { containers: containers ?? [{ name: 'etcd', command }] } }) as never;

t.test("words of a member pod's command that are no text are skipped", async (t) => {
  for (const odd of [7, null, { toString: 1 }, ['--initial-advertise-peer-urls=x'], true]) {
    const label = JSON.stringify(odd);
    t.equal(
      hostOf(namedSpec(spec, parent, {}, { pods: [podWith([odd])], status: {} })),
      'e-0.e.ns.svc.cluster.local',
      `${label} alone: no name read, a new cluster's names`,
    );
    t.equal(
      namedSpec(spec, parent, {}, { pods: [podWith([odd, RELATIVE])], status: {} }),
      spec,
      `${label} before the flag: the relative names the flag says are kept`,
    );
  }
  t.equal(
    hostOf(namedSpec(spec, parent, {}, { pods: [podWith('etcd ' + RELATIVE)], status: {} })),
    'e-0.e.ns.svc.cluster.local',
    'a command that is one string, not a list, says nothing',
  );
  t.equal(
    namedSpec(spec, parent, {}, { pods: [podWith(undefined, [null, 5, { command: [RELATIVE] }])], status: {} }),
    spec,
    'containers that are no objects are skipped, the next one read',
  );
});

t.test(
  "entries of the status' member list that are no member, or whose peer URL is no text, are skipped",
  async (t) => {
    const odd = [null, 5, 'e-0', { peerURL: 7 }, { peerURL: { toString: 1 } }];
    t.equal(
      hostOf(namedSpec(spec, parent, {}, { pods: [], status: { memberList: odd } })),
      'e-0.e.ns.svc.cluster.local',
      'nothing read: a new cluster names its members in the server cluster domain',
    );
    t.equal(
      namedSpec(
        spec,
        parent,
        {},
        { pods: [], status: { memberList: [...odd, { peerURL: 'http://e-0.e.ns.svc:2380' }] } },
      ),
      spec,
      'the one entry that names a relative URL keeps the relative names',
    );
    // A new TLS cluster whose member certificates carry only the relative names keeps those: what was skipped is no
    // sign of names the members were made with.
    const relativeOnly = new Pki('odd-ca').issue('m', 'etcd-peer', { san: 'DNS:*.e.ns.svc' }).cert.toString();
    t.equal(
      namedSpec(spec, parent, {}, { pods: [], status: { memberList: odd }, certificates: [relativeOnly] }),
      spec,
      'skipped entries say no names: the certificates decide',
    );
    t.equal(
      namedSpec(spec, parent, {}, { pods: [podWith([7, ['x']])], status: {}, certificates: [relativeOnly] }),
      spec,
      'skipped command words say no names: the certificates decide',
    );
    t.equal(
      hostOf(
        namedSpec(spec, parent, {}, { pods: [], status: { memberList: { peerURL: 'http://e-0.e.ns.svc:2380' } } }),
      ),
      'e-0.e.ns.svc.cluster.local',
      'a member list that is no list says nothing',
    );
  },
);
