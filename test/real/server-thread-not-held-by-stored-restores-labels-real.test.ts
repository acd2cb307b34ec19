// The same as test/lib/server-thread-not-held-by-related-objects-labels.test.ts, with the EtcdRestores as a real
// kube-apiserver (1.36) stores them: tenant A, allowed only to write EtcdRestores in its namespace (RBAC), creates five
// with ~1.3 MiB of labels each, many short keys of their own (`{"a-0":"","b-0":"",...}`); the API server takes them
// (it bounds each label key and value, and the annotations in all, but not the labels in all), and they are listed as
// Metacontroller's informers read them. An EtcdCluster sync of A's namespace carries them (its customize asks for every
// EtcdRestore of its namespace); their managedFields are cut before the parse, their labels are not: the server's one
// thread parses ~600,000 keys in one go. Expected: no single JSON.parse of that sync makes more than
// MAX_MEMBERS_PER_PARSE members (counted, not timed; the /healthz figures are a comment only).
import { join } from 'node:path';
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent, unreachableEtcd } from '../fixtures/etcd.js';
import { healthProbes, PROBE_TIMEOUT_MS } from '../fixtures/keyed-managed-fields.js';
import { manyKeys, MAX_MEMBERS_PER_PARSE, watchParses } from '../fixtures/parsed-members.js';
import { FIXED_NOW, root } from '../fixtures/requests.js';

const api = startApiServer(t, 'restores-labels', ['tenant-a'], {
  authorization: 'RBAC',
  tokens: ['tenant-a-token,tenant-a-user,uid-tenant-a,tenants'],
});
const TOKEN = 'restores-labels-token-0123456789';
const RESTORES = '/apis/etcd.database.coreos.com/v1beta2/namespaces/tenant-a/etcdrestores';

/** Tenant A's call to the API server (its own token: it may only write EtcdRestores of its namespace). */
async function asTenant(path: string, method = 'GET', body?: unknown): Promise<{ status: number; text: string }> {
  const res = await fetch(`https://127.0.0.1:${api.port()}${path}`, {
    method,
    headers: { authorization: 'Bearer tenant-a-token', 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, text: await res.text() };
}

t.test("a namespace's stored EtcdRestores' labels are not parsed in one go with its cluster's sync", async (t) => {
  process.env['NODE_TLS_REJECT_UNAUTHORIZED'] = '0';
  t.teardown(() => delete process.env['NODE_TLS_REJECT_UNAUTHORIZED']);
  api.kubectl(['apply', '-f', join(root, 'manifests', 'crds', 'etcdrestores.etcd.database.coreos.com.yaml')]);
  api.kubectl(['wait', '--for=condition=Established', 'crd/etcdrestores.etcd.database.coreos.com', '--timeout=60s']);
  // Tenant A's rights: EtcdRestores of its namespace, nothing else.
  api.kubectl(
    ['apply', '-f', '-'],
    JSON.stringify({
      apiVersion: 'rbac.authorization.k8s.io/v1',
      kind: 'Role',
      metadata: { name: 'restores', namespace: 'tenant-a' },
      rules: [{ apiGroups: ['etcd.database.coreos.com'], resources: ['etcdrestores'], verbs: ['*'] }],
    }),
  );
  api.kubectl(['create', 'rolebinding', 'restores', '-n', 'tenant-a', '--role=restores', '--user=tenant-a-user']);

  for (let n = 0; n < 5; n++) {
    const made = await asTenant(RESTORES, 'POST', {
      apiVersion: 'etcd.database.coreos.com/v1beta2',
      kind: 'EtcdRestore',
      metadata: { name: `r${n}`, labels: manyKeys(1.3 * 1024 * 1024, n) },
      spec: { etcdCluster: { name: 'other' }, s3: { path: 'backups/tenant-a/snap.db', awsSecret: 'aws' } },
    });
    t.equal(
      made.status,
      201,
      `tenant A creates EtcdRestore r${n} with its labels${made.status === 201 ? '' : `: ${made.text.slice(0, 300)}`}`,
    );
  }
  // What Metacontroller's informer holds of them (a list, as the API server answers it).
  const list = await fetch(`https://127.0.0.1:${api.port()}${RESTORES}`, {
    headers: { authorization: 'Bearer admin-token' },
  });
  const listed = (await list.json()) as { items: KubeObject[] };
  const restores = listed.items.map((r) => ({
    ...r,
    apiVersion: 'etcd.database.coreos.com/v1beta2',
    kind: 'EtcdRestore',
  }));
  t.equal(restores.length, 5);

  const app = testApp({ auth: { bearer: TOKEN }, deps: { now: () => FIXED_NOW, etcdClient: () => unreachableEtcd } });
  t.teardown(() => app.close());
  const base = await app.listen({ port: 0, host: '127.0.0.1' });
  const parent = etcdParent({ size: 3 }, { phase: 'Running' });
  parent.metadata = { ...parent.metadata, namespace: 'tenant-a' };
  const body = JSON.stringify({
    controller: {},
    parent,
    children: { 'Pod.v1': {}, 'Service.v1': {} },
    related: {
      'EtcdRestore.etcd.database.coreos.com/v1beta2': Object.fromEntries(
        restores.map((r) => [`tenant-a/${r.metadata.name}`, r]),
      ),
    },
  });
  const probed = healthProbes(t, `${base}/healthz`, 8000);
  await new Promise((r) => setTimeout(r, 1000));
  const watched = watchParses(t);
  const res = await fetch(`${base}/hooks/etcdcluster/sync`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body,
  });
  const seen = await probed;
  const parses = watched.counts();
  t.comment(
    `A's sync (${(body.length / 1048576).toFixed(1)} MiB, its EtcdRestores as stored) answered ${res.status}; the ` +
      `server's parses of it made ${JSON.stringify(parses)} members; /healthz probed ${seen.length} times, ` +
      `${seen.filter((ms) => ms >= PROBE_TIMEOUT_MS).length} after the probe timeout, the slowest in ` +
      `${Math.max(...seen)} ms (not asserted)`,
  );
  t.equal(res.status, 200, "A's sync is answered");
  const most = Math.max(0, ...parses);
  t.ok(
    most <= MAX_MEMBERS_PER_PARSE,
    `no parse of A's sync on the server's thread makes more than ${MAX_MEMBERS_PER_PARSE} members (the most: ${most})`,
  );
});
