// The record of failed additions (hooks/etcdcluster/additions.ts) is written where it outlives a sync (the status,
// every member pod's etcd.metaops.io/additions-failed annotation) and read back by later versions of the operator:
// its annotation's name and the fingerprint of the spec it holds must read the same after an upgrade, or a cluster
// whose additions stopped starts adding failing members again. And how a member that did not start failed is read
// from its etcd container only, from whatever parts of a pod's status the API server sent.
import t from 'tap';
import { additionSpec, additionsMemory, howItFailed, withAdditionsOnPods } from '../../hooks/etcdcluster/additions.js';
import type { EtcdClusterSpec } from '../../hooks/etcdcluster/schema.js';
import type { KubeObject, ParentObject } from '../../lib/metacontroller.js';

const ANNOTATION = 'etcd.metaops.io/additions-failed';
const parent = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'e', namespace: 'ns', uid: 'uid-e' },
} as ParentObject;
const spec = (s: Record<string, unknown>) => s as unknown as EtcdClusterSpec;
const SPEC = spec({
  size: 3,
  version: '3.6.9',
  pod: { tolerations: [{ key: 'k', operator: 'Exists' }], labels: { a: 'b' } },
});

t.test('the fingerprint of a spec is the one earlier versions recorded', async (t) => {
  // Values an operator of 2026-11-29 wrote into status.additionsFailed.spec and the pods' annotation.
  t.equal(additionSpec(parent, spec({ size: 3, version: '3.6.9' })), '86dfc5522f55f02d');
  t.equal(additionSpec(parent, SPEC), 'd093726d6316732c', 'a spec with a list of objects');
  // The same list with its objects' keys in another order is the same spec.
  const reordered = spec({
    version: '3.6.9',
    size: 5,
    pod: { labels: { a: 'b' }, tolerations: [{ operator: 'Exists', key: 'k' }] },
  });
  t.equal(additionSpec(parent, reordered), 'd093726d6316732c');
});

t.test(
  'the record is carried on every pod under etcd.metaops.io/additions-failed, and read back from there',
  async (t) => {
    const record = {
      uid: 'uid-e',
      spec: additionSpec(parent, SPEC),
      members: ['e-3', 'e-4', 'e-5'],
      reason: 'Error, exit code 1',
      since: '2026-01-02T03:04:05Z',
    };
    const pod = (name: string, annotations?: Record<string, string>): KubeObject =>
      ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name, namespace: 'ns', ...(annotations ? { annotations } : {}) },
      }) as KubeObject;
    const marked = withAdditionsOnPods({ pods: [pod('e-0')], fallbackPods: [pod('e-1')], additionsFailed: record });
    t.same(Object.keys(marked.pods[0]!.metadata.annotations ?? {}), [ANNOTATION]);
    t.same(Object.keys(marked.fallbackPods[0]!.metadata.annotations ?? {}), [ANNOTATION]);
    // The status lost: the record is read from a pod that carries it, beside pods that carry no annotation at all.
    const memory = additionsMemory(parent, SPEC, [
      pod('e-0'),
      pod('e-1', { [ANNOTATION]: JSON.stringify(record) }),
      pod('e-2', {}),
    ]);
    t.same(memory.record, record);
    const none = additionsMemory(parent, SPEC, [pod('e-0'), pod('e-1', { other: 'x' })]);
    t.equal(none.record, undefined);
  },
);

t.test('how a member failed is read from its etcd container, not from a sidecar listed first', async (t) => {
  const pod = (containerStatuses: unknown[], phase = 'Running'): KubeObject =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'e-3', namespace: 'ns' },
      status: { phase, containerStatuses },
    }) as KubeObject;
  const sidecar = { name: 'proxy', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } };
  t.equal(
    howItFailed(pod([sidecar, { name: 'etcd', state: { running: {} } }]), 'it did not start'),
    'it did not start',
    'a sidecar’s exit is not the member’s',
  );
  t.equal(
    howItFailed(pod([sidecar, { name: 'etcd', state: { terminated: { exitCode: 2, reason: 'Error' } } }]), 'x'),
    'Error, exit code 2',
  );
  // A container status without its state (the API server sends what it has): its last exit.
  t.equal(
    howItFailed(pod([{ name: 'etcd', lastState: { terminated: { exitCode: 1, reason: 'Error' } } }]), 'x'),
    'Error, exit code 1',
  );
  t.equal(howItFailed(pod([{ name: 'etcd' }]), 'it did not start'), 'it did not start');
});
