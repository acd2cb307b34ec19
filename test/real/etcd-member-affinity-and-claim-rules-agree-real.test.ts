// Each case of test/etcdcluster/affinity-and-claim-cases.ts against a real kube-apiserver: a pod carrying the
// affinity (with a member pod's labels, which the API server merges matchLabelKeys with) and a claim of the spec,
// created with --dry-run=server and --validate=warn (as Metacontroller writes: no fieldValidation, so the server's
// default, Warn: unknown fields dropped), are refused exactly when the case says so. The fast suite holds the hook to
// the same cases (test/etcdcluster/member-affinity-and-claim-rules.test.ts).
import t from 'tap';
import { memberLabelKeys } from '../../hooks/etcdcluster/members.js';
import { affinityCases, claimCases } from '../etcdcluster/affinity-and-claim-cases.js';
import { startApiServer } from '../fixtures/apiserver.js';

const api = startApiServer(t, 'f-affinity-claim-rules', ['ns']);

function refusal(object: Record<string, unknown>): string | undefined {
  try {
    api.kubectl(['create', '--dry-run=server', '--validate=warn', '-f', '-'], JSON.stringify(object));
    return undefined;
  } catch (e) {
    return String((e as { stderr?: unknown }).stderr ?? e).trim();
  }
}

const labels = Object.fromEntries(memberLabelKeys('example', {}).map((k) => [k, 'example']));

t.test('each affinity case: the API server refuses the pod exactly when the case says so', async (t) => {
  for (const [i, c] of affinityCases.entries()) {
    const wrong = refusal({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `a${i}`, namespace: 'ns', labels },
      spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.5.0' }], affinity: c.value },
    });
    t.equal(wrong !== undefined, c.refused, `${c.what}: ${wrong ?? 'accepted'}`);
  }
});

t.test('each claim case: the API server refuses the claim exactly when the case says so', async (t) => {
  for (const [i, c] of claimCases.entries()) {
    const wrong = refusal({
      apiVersion: 'v1',
      kind: 'PersistentVolumeClaim',
      metadata: { name: `c${i}`, namespace: 'ns' },
      spec: c.value,
    });
    t.equal(wrong !== undefined, c.refused, `${c.what}: ${wrong ?? 'accepted'}`);
  }
});
