// The same as test/lib/server-thread-not-held-by-related-managed-fields.test.ts, with the EtcdRestores as a real
// kube-apiserver (1.36) stores them: tenant A, allowed only to write EtcdRestores in its namespace (RBAC), sets their
// metadata.managedFields to an entry whose fieldsV1 is ~1.3 MiB of small objects each with a field name of its own
// (`{"f:spec":{"f:k1":{"f:x1":{}}, ...}}`); the API server keeps it (a client may write managedFields), and the
// objects are listed as Metacontroller's informers read them. An EtcdCluster sync of A's namespace carries them (its
// customize asks for every EtcdRestore of its namespace), and only the parent's managedFields are cut before the
// parse: the server's one thread is held seconds, and the kubelet's /healthz probe (timeoutSeconds 1) goes unanswered.
// Expected: every object's managedFields are cut out of the text before it is parsed (lib/json.ts withoutManagedFields,
// lib/app.ts): what JSON.parse is given holds none of them, a small fraction of the body. Asserted in bytes, not time
// (the /healthz probe's figures are reported as a comment only).
import { join } from 'node:path';
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { testApp } from '../fixtures/app.js';
import { etcdParent, unreachableEtcd } from '../fixtures/etcd.js';
import { healthProbes, keyedFieldsV1, parsedWhile, PROBE_TIMEOUT_MS } from '../fixtures/keyed-managed-fields.js';
import { FIXED_NOW, root } from '../fixtures/requests.js';

const api = startApiServer(t, 'restores-managed-fields', ['tenant-a'], {
  authorization: 'RBAC',
  tokens: ['tenant-a-token,tenant-a-user,uid-tenant-a,tenants'],
});
const TOKEN = 'restores-managed-fields-token-0123456789';
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

t.test("a namespace's sync is parsed without its stored EtcdRestores' managedFields", async (t) => {
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
      metadata: { name: `r${n}` },
      spec: { etcdCluster: { name: 'other' }, s3: { path: 'backups/tenant-a/snap.db', awsSecret: 'aws' } },
    });
    t.equal(made.status, 201, `tenant A creates EtcdRestore r${n}`);
    const obj = JSON.parse(made.text) as KubeObject & { metadata: { managedFields?: unknown[] } };
    obj.metadata.managedFields = [
      ...(obj.metadata.managedFields ?? []),
      {
        manager: 'tenant',
        operation: 'Update',
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        time: '2026-01-01T00:00:00Z',
        fieldsType: 'FieldsV1',
        fieldsV1: keyedFieldsV1(1.3 * 1024 * 1024, n),
      },
    ];
    const put = await asTenant(`${RESTORES}/r${n}`, 'PUT', obj);
    t.equal(put.status, 200, `tenant A writes r${n}'s managedFields`);
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
  const began = Date.now();
  const { result: status, texts } = await parsedWhile(() =>
    fetch(`${base}/hooks/etcdcluster/sync`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
      body,
    }).then((r) => r.status),
  );
  const took = Date.now() - began;
  const seen = await probed;
  const syncs = texts.filter((x) => x.includes('"EtcdRestore.etcd.database.coreos.com/v1beta2"'));
  const largest = Math.max(0, ...syncs.map((x) => x.length));
  t.comment(
    `A's sync (${(body.length / 1048576).toFixed(1)} MiB, its EtcdRestores as stored) answered ${status} in ` +
      `${took} ms, parsed as ${syncs.length} text(s) of at most ${largest} characters; /healthz probed ` +
      `${seen.length} times, the slowest answered in ${Math.max(...seen)} ms (the kubelet's probe timeout: ` +
      `${PROBE_TIMEOUT_MS} ms)`,
  );
  t.equal(status, 200, "A's sync is answered");
  t.ok(
    restores.every((r) => JSON.stringify(r).includes('"managedFields"')),
    'the EtcdRestores as stored carry managedFields',
  );
  t.equal(syncs.length, 1, 'the sync is parsed once, in this process');
  t.notOk(
    syncs.some((x) => x.includes('"managedFields"')),
    "no text parsed for A's sync holds a managedFields key (the EtcdRestores' are cut before the parse)",
  );
  t.ok(
    largest < body.length / 100,
    `what is parsed of the sync (${largest} characters) is under 1% of its body (${body.length})`,
  );
});
