import t from 'tap';
import {
  CLAIM_UID_LABEL,
  customize,
  existingVolumes,
  INSTANCE_LABEL,
  invalid,
  memberStates,
  mysqlVersion,
  namesOf,
  PASSWORD_KEY,
  PEERS_KEY,
  REPLICATION_KEY,
  runningVersion,
  versionTypeProblem,
} from '../../hooks/mysqlcluster/sync.js';
import {
  CONFIG_SCRIPT,
  REPLICATION_PROBE,
  REPLICATION_SCRIPT,
  SERVER_PROBE,
} from '../../hooks/mysqlcluster/scripts.js';
import { mysqlcluster } from '../../hooks/mysqlcluster/index.js';
import { mysqlSync as sync } from '../fixtures/hooks.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { asObserved, example, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const now = FIXED_NOW;
/** The uid of the example MySQLCluster (examples/requests/mysqlcluster-sync.json). */
const PARENT_UID = example('mysqlcluster-sync').parent.metadata.uid!;
let counter = 0;
const newPassword = () => `generated-${++counter}`;

function byKind(children: KubeObject[]) {
  const out: Record<string, any> = {};
  for (const c of children) out[`${c.kind}/${c.metadata.name}`] = c;
  return out;
}

t.test('the seed MySQLCluster (version: 8.0, read by YAML as 8) gets its five children', async (t) => {
  const res = sync(example('mysqlcluster-sync'), now, newPassword);
  const c = byKind(res.children);
  t.same(Object.keys(c).sort(), [
    'Secret/my-mysql-mysql',
    'Service/my-mysql-mysql',
    'Service/my-mysql-mysql-headless',
    'Service/my-mysql-mysql-read',
    'StatefulSet/my-mysql-mysql',
  ]);
  const sts = c['StatefulSet/my-mysql-mysql'];
  t.equal(sts.spec.replicas, 3);
  t.equal(sts.spec.serviceName, 'my-mysql-mysql-headless');
  t.equal(sts.spec.template.spec.containers[0].image, 'mysql:8.0');
  t.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '1Gi');
  t.same(sts.spec.template.spec.containers[0].env[0].valueFrom.secretKeyRef, {
    name: 'my-mysql-mysql',
    key: PASSWORD_KEY,
  });
  t.equal(c['Service/my-mysql-mysql-headless'].spec.clusterIP, 'None');
  t.equal(c['Service/my-mysql-mysql'].spec.ports[0].port, 3306);
  const password = Buffer.from(c['Secret/my-mysql-mysql'].data[PASSWORD_KEY], 'base64').toString();
  t.match(password, /^generated-/);
  t.notOk((res.status as any).version, 'no pod runs yet, so no version is claimed');
  t.notOk((res.status as any).secretName, 'no Secret observed yet');
});

t.test('the password is generated once, then re-emitted as observed, never regenerated', async (t) => {
  const first = sync(request('mysqlcluster', { size: 1, version: '8.0' }), now, newPassword);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const firstSecret = byKind(first.children)['Secret/my-mysql-mysql'];
  for (let i = 0; i < 3; i++) {
    const res = sync(request('mysqlcluster', { size: 1, version: '8.0' }, { children: observed }), now, () => {
      throw new Error('must not generate');
    });
    t.same(byKind(res.children)['Secret/my-mysql-mysql'].data, firstSecret.data);
    t.equal((res.status as any).secretName, 'my-mysql-mysql');
  }
});

t.test('a Secret lost after creation is reported, and no new password is made', async (t) => {
  const req = request('mysqlcluster', { size: 1, version: '8.0' });
  req.parent.status = { secretName: 'my-mysql-mysql' };
  const res = sync(req, now, () => {
    throw new Error('must not generate');
  });
  t.notOk(byKind(res.children)['Secret/my-mysql-mysql']);
  t.ok(byKind(res.children)['StatefulSet/my-mysql-mysql'], 'the StatefulSet is kept');
  const conditions = (res.status as any).conditions;
  t.match(
    conditions.find((c: any) => c.type === 'Ready'),
    { status: 'False', reason: 'CredentialsLost' },
  );
  const uid = req.parent.metadata.uid!;
  t.ok(uid, 'the example parent has a uid');
  t.equal(
    conditions.find((c: any) => c.type === 'CredentialsAvailable').message,
    'Secret my-mysql-mysql (key root-password) was deleted or emptied after the cluster was created; they keep the ' +
      'root password they were made with, so no new one is generated. Create it with that password and the label ' +
      `controller-uid=${uid}, which lets Metacontroller adopt it: kubectl -n default create secret generic ` +
      'my-mysql-mysql --from-literal=root-password=<password> && kubectl -n default label secret my-mysql-mysql ' +
      `controller-uid=${uid}`,
    'the commands that recover it, with the label Metacontroller adopts by (test/e2e runs them)',
  );
  t.equal(
    conditions.find((c: any) => c.type === 'Ready').message,
    conditions.find((c: any) => c.type === 'CredentialsAvailable').message,
  );
});

t.test("an emptied Secret: the instruction puts the key back in it (it is the cluster's already)", async (t) => {
  const { recovery } = await import('../../hooks/mysqlcluster/sync.js');
  const req = request('mysqlcluster', { size: 1, version: '8.0' });
  t.equal(
    recovery(req.parent, 'my-mysql-mysql', true),
    'Put that password back under key root-password: kubectl -n default patch secret my-mysql-mysql ' +
      `--type=merge -p '{"stringData":{"root-password":"<password>"}}'`,
  );
  const elsewhere = { ...req.parent, metadata: { ...req.parent.metadata, namespace: 'shop', name: 'db', uid: 'u-1' } };
  t.equal(
    recovery(elsewhere, 'db-mysql', false),
    'Create it with that password and the label controller-uid=u-1, which lets Metacontroller adopt it: ' +
      'kubectl -n shop create secret generic db-mysql --from-literal=root-password=<password> && ' +
      'kubectl -n shop label secret db-mysql controller-uid=u-1',
  );
  t.match(
    recovery({ ...elsewhere, metadata: { name: 'db' } }, 'db-mysql', true),
    /kubectl -n default patch secret db-mysql /,
  );
});

t.test('versions: strings as written, numbers as YAML read them', async (t) => {
  t.equal(mysqlVersion(8), '8.0');
  t.equal(mysqlVersion(8.4), '8.4');
  t.equal(mysqlVersion('8.0.36'), '8.0.36');
  t.equal(mysqlVersion(' 5.7 '), '5.7');
  for (const version of ['latest', '8.0;rm', 'v8', '']) {
    const res = sync(request('mysqlcluster', { size: 1, version }), now, newPassword);
    t.match(
      (res.status as any).conditions[0],
      { reason: 'InvalidSpec' },
      `version ${JSON.stringify(version)} is refused`,
    );
    t.same(res.children, []);
  }
});

t.test('an invalid spec keeps the running cluster as it is', async (t) => {
  const first = sync(request('mysqlcluster', { size: 3, version: '8.0' }), now, newPassword);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const res = sync(request('mysqlcluster', { size: 3, version: 'eight' }, { children: observed }), now, newPassword);
  t.equal(res.children.length, 5);
  t.equal(byKind(res.children)['StatefulSet/my-mysql-mysql'].spec.template.spec.containers[0].image, 'mysql:8.0');
  t.match((res.status as any).conditions[0], { reason: 'InvalidSpec', message: /spec\.version is "eight"/ });
});

t.test('volume claim templates are fixed once the StatefulSet exists', async (t) => {
  const first = sync(request('mysqlcluster', { size: 1, version: '8.0', storage: { size: '5Gi' } }), now, newPassword);
  const observed = objectMap(first.children.map((c) => asObserved(c)));
  const res = sync(
    request('mysqlcluster', { size: 1, version: '8.0', storage: { size: '10Gi' } }, { children: observed }),
    now,
    newPassword,
  );
  const sts = byKind(res.children)['StatefulSet/my-mysql-mysql'];
  t.equal(sts.spec.volumeClaimTemplates[0].spec.resources.requests.storage, '5Gi');
  t.match(
    (res.status as any).conditions.find((c: any) => c.type === 'StorageResized'),
    {
      status: 'False',
      reason: 'StorageImmutable',
    },
  );
});

t.test('a version change rolls the StatefulSet in place, selector unchanged', async (t) => {
  const a = byKind(sync(request('mysqlcluster', { size: 3, version: '8.0' }), now, newPassword).children)[
    'StatefulSet/my-mysql-mysql'
  ];
  const b = byKind(sync(request('mysqlcluster', { size: 3, version: '8.4' }), now, newPassword).children)[
    'StatefulSet/my-mysql-mysql'
  ];
  t.same(a.spec.selector, b.spec.selector);
  t.equal(b.spec.template.spec.containers[0].image, 'mysql:8.4');
});

/** A StatefulSet as the API server stores it: its claim templates get apiVersion, kind, volumeMode and a status. */
function storedStatefulSet(sts: KubeObject): KubeObject {
  const stored = asObserved(sts, { replicas: 1, readyReplicas: 1, updatedReplicas: 1 }) as any;
  stored.spec.volumeClaimTemplates = stored.spec.volumeClaimTemplates.map((c: any) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { ...c.metadata },
    spec: { ...c.spec, volumeMode: 'Filesystem' },
    status: { phase: 'Pending' },
  }));
  return stored;
}

t.test(
  'at rest the StatefulSet answered is the one the API server stores: its claim templates are not rewritten',
  async (t) => {
    const first = sync(request('mysqlcluster', { size: 1, version: '8.0' }), now, newPassword);
    const stored = first.children.map((c) => (c.kind === 'StatefulSet' ? storedStatefulSet(c) : asObserved(c)));
    const storedSts = stored.find((c) => c.kind === 'StatefulSet') as any;
    // The first answer already has the stored form, so creating it is not followed by an update.
    t.same(
      byKind(first.children)['StatefulSet/my-mysql-mysql'].spec.volumeClaimTemplates,
      storedSts.spec.volumeClaimTemplates,
    );
    for (let i = 0; i < 3; i++) {
      const res = sync(
        request('mysqlcluster', { size: 1, version: '8.0' }, { children: objectMap(stored) }),
        now,
        newPassword,
      );
      t.same(
        byKind(res.children)['StatefulSet/my-mysql-mysql'].spec.volumeClaimTemplates,
        storedSts.spec.volumeClaimTemplates,
      );
    }
  },
);

t.test('a primary and read replicas: writes go to member 0 only, reads to every Ready member', async (t) => {
  const c = byKind(sync(request('mysqlcluster', { size: 3, version: '8.0' }), now, newPassword).children);
  t.same(c['Service/my-mysql-mysql'].spec.selector, {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    [INSTANCE_LABEL]: 'my-mysql',
    'statefulset.kubernetes.io/pod-name': 'my-mysql-mysql-0',
  });
  t.same(c['Service/my-mysql-mysql-read'].spec.selector, {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    [INSTANCE_LABEL]: 'my-mysql',
  });
  t.notOk(c['Service/my-mysql-mysql-read'].spec.clusterIP, 'a load-balanced Service: only Ready members');
  const pod = c['StatefulSet/my-mysql-mysql'].spec.template.spec;
  const sidecar = pod.containers.find((x: any) => x.name === 'replication');
  t.same(
    sidecar.env.find((e: any) => e.name === 'PRIMARY_HOST'),
    { name: 'PRIMARY_HOST', value: 'my-mysql-mysql-0.my-mysql-mysql-headless.default.svc.cluster.local' },
    'replicas follow member 0 by its stable name, fully qualified',
  );
  t.same(sidecar.env.find((e: any) => e.name === 'REPLICATION_PASSWORD').valueFrom.secretKeyRef, {
    name: 'my-mysql-mysql',
    key: REPLICATION_KEY,
  });
  const secret = c['Secret/my-mysql-mysql'];
  t.ok(secret.data[REPLICATION_KEY], 'the replication credentials are in the Secret');
  t.not(secret.data[REPLICATION_KEY], secret.data[PASSWORD_KEY], 'a password of its own');
});

t.test("seed 001's labels on the MySQL pods; the selector stays the stable one", async (t) => {
  const sts = byKind(sync(request('mysqlcluster', { size: 3, version: '8.0' }), now, newPassword).children)[
    'StatefulSet/my-mysql-mysql'
  ];
  t.match(sts.spec.template.metadata.labels, { app: 'mysqlcluster', mysqlcluster_cr: 'my-mysql' });
  t.same(sts.spec.selector, {
    matchLabels: { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': 'my-mysql' },
  });
});

t.test(
  'pods pass Pod Security restricted as user mysql (999); probes keep the password off command lines',
  async (t) => {
    const sts = byKind(sync(request('mysqlcluster', { size: 3, version: '8.0' }), now, newPassword).children)[
      'StatefulSet/my-mysql-mysql'
    ];
    const pod = sts.spec.template.spec;
    t.same(pod.securityContext, {
      runAsNonRoot: true,
      runAsUser: 999,
      runAsGroup: 999,
      fsGroup: 999,
      seccompProfile: { type: 'RuntimeDefault' },
    });
    const containers = [...pod.initContainers, ...pod.containers];
    t.equal(containers.length, 3);
    for (const c of containers) {
      t.same(c.securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } }, c.name);
      t.notOk(c.securityContext.privileged, `${c.name} is not privileged`);
    }
    for (const c of pod.containers) {
      const argv = JSON.stringify(c.readinessProbe.exec.command);
      t.notMatch(argv, /PASSWORD|-p"|-p\$|--password/, `${c.name}'s probe has no password in its argv`);
    }
    t.same(pod.containers[0].readinessProbe.exec.command.slice(0, 2), [
      'mysql',
      '--defaults-extra-file=/etc/mysql-client/root.cnf',
    ]);
    t.notMatch(
      JSON.stringify(pod.containers[0].readinessProbe),
      /mysqladmin/,
      'not mysqladmin ping, which succeeds on Access denied',
    );
  },
);

/** A member pod as the kubelet reports it. */
function memberPod(ordinal: number, opts: { image?: string; ready?: boolean; replicating?: boolean } = {}): KubeObject {
  const ready = opts.ready ?? true;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `my-mysql-mysql-${ordinal}`,
      namespace: 'default',
      labels: {
        'app.kubernetes.io/name': 'mysql',
        'app.kubernetes.io/instance': 'my-mysql',
        [INSTANCE_LABEL]: 'my-mysql',
      },
      ownerReferences: [{ apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'my-mysql-mysql', controller: true }],
    },
    spec: {
      containers: [
        { name: 'mysql', image: opts.image ?? 'mysql:8.0' },
        { name: 'replication', image: opts.image ?? 'mysql:8.0' },
      ],
    },
    status: {
      phase: 'Running',
      conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }],
      containerStatuses: [
        { name: 'mysql', ready: true },
        { name: 'replication', ready: opts.replicating ?? true },
      ],
    },
  } as KubeObject;
}

t.test('status names the primary, says whether each replica replicates, and the version the pods run', async (t) => {
  const pods = [memberPod(0), memberPod(1), memberPod(2, { ready: false, replicating: false })];
  const res = sync(
    request('mysqlcluster', { size: 3, version: '8.4' }, { related: objectMap(pods) }),
    now,
    newPassword,
  );
  const status = res.status as any;
  t.equal(status.primary, 'my-mysql-mysql-0');
  t.same(status.members, [
    { name: 'my-mysql-mysql-0', role: 'primary', ready: true },
    { name: 'my-mysql-mysql-1', role: 'replica', ready: true, replicating: true },
    { name: 'my-mysql-mysql-2', role: 'replica', ready: false, replicating: false },
  ]);
  t.match(
    status.conditions.find((c: any) => c.type === 'Replicating'),
    { status: 'False', reason: 'ReplicaNotReplicating', message: /my-mysql-mysql-2/ },
  );
  t.equal(status.version, '8.0', 'the spec asks for 8.4, the pods still run 8.0');
  t.same(status.nodes, ['my-mysql-mysql-0', 'my-mysql-mysql-1', 'my-mysql-mysql-2']);

  const rolling = [memberPod(0, { image: 'mysql:8.4' }), memberPod(1), memberPod(2, { image: 'mysql:8.4' })];
  const mid = sync(
    request('mysqlcluster', { size: 3, version: '8.4' }, { related: objectMap(rolling) }),
    now,
    newPassword,
  );
  t.equal((mid.status as any).version, '8.0, 8.4', 'during a rollout: both');
  t.match(
    (mid.status as any).conditions.find((c: any) => c.type === 'Replicating'),
    { status: 'True', reason: 'AllReplicating' },
  );
});

t.test('`version: {"major": 8}` says what the field takes', async (t) => {
  const res = sync(request('mysqlcluster', { size: 1, version: { major: 8 } }), now, newPassword);
  const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.equal(ready.reason, 'InvalidSpec');
  t.notMatch(ready.message, /union/i);
  t.match(ready.message, /spec\.version is \{"major":8\}: expected a MySQL version as a string, such as "8\.0"/);
});

t.test('while InvalidSpec, the last Available and Progressing conditions are kept', async (t) => {
  const spec = { size: 1, version: '8.0' };
  const first = sync(request('mysqlcluster', spec), now, newPassword);
  const sts = asObserved(byKind(first.children)['StatefulSet/my-mysql-mysql'], {
    replicas: 1,
    readyReplicas: 1,
    updatedReplicas: 1,
  });
  const observed = objectMap([
    ...first.children.filter((c) => c.kind !== 'StatefulSet').map((c) => asObserved(c)),
    sts,
  ]);
  const settledReq = request('mysqlcluster', spec, { children: observed, related: objectMap([memberPod(0)]) });
  settledReq.parent.status = first.status;
  const settled = sync(settledReq, now, newPassword).status as any;
  const available = settled.conditions.find((c: any) => c.type === 'Available');
  t.equal(available.status, 'True');
  // The member still serves (its pod observed, as Metacontroller sends it): what Available said still holds.
  const badReq = request(
    'mysqlcluster',
    { size: 1, version: 'eight' },
    { children: observed, related: objectMap([memberPod(0)]) },
  );
  badReq.parent.status = settled;
  const bad = sync(badReq, new Date(now.getTime() + 60_000), newPassword).status as any;
  t.match(
    bad.conditions.find((c: any) => c.type === 'Ready'),
    { status: 'False', reason: 'InvalidSpec' },
  );
  t.same(
    bad.conditions.find((c: any) => c.type === 'Available'),
    available,
    'Available kept as it was',
  );
  t.same(
    bad.conditions.find((c: any) => c.type === 'Progressing'),
    settled.conditions.find((c: any) => c.type === 'Progressing'),
  );
  t.equal(bad.conditions.filter((c: any) => c.type === 'Ready').length, 1, 'one Ready condition');
});

/**
 * A data volume the StatefulSet of a cluster named my-mysql made (labelled with its selector), of this cluster's
 * lineage (CLAIM_UID_LABEL: the cluster's uid; a previous cluster's, adopted).
 */
function volume(ordinal: number, legacy = false): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: legacy ? `data-my-mysql-${ordinal}` : `data-my-mysql-mysql-${ordinal}`,
      namespace: 'default',
      labels: {
        'app.kubernetes.io/name': 'mysql',
        'app.kubernetes.io/instance': 'my-mysql',
        [CLAIM_UID_LABEL]: PARENT_UID,
      },
    },
  } as KubeObject;
}

t.test(
  'the data volumes of a previous cluster with this name exist: CredentialsLost, never a new password',
  async (t) => {
    const res = sync(
      request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap([volume(0), volume(1)]) }),
      now,
      () => {
        throw new Error('must not generate');
      },
    );
    t.notOk(byKind(res.children)['Secret/my-mysql-mysql'], 'no Secret with a new password');
    t.ok(byKind(res.children)['StatefulSet/my-mysql-mysql'], 'the cluster itself is still asked for');
    const conditions = (res.status as any).conditions;
    t.match(
      conditions.find((c: any) => c.type === 'Ready'),
      { status: 'False', reason: 'CredentialsLost' },
    );
    t.match(
      conditions.find((c: any) => c.type === 'CredentialsAvailable'),
      {
        reason: 'CredentialsLost',
        message: /data volumes of a cluster with this name do \(data-my-mysql-mysql-0, data-my-mysql-mysql-1\)/,
      },
    );
    // Volumes of another cluster, or being deleted, do not count.
    const other = { ...volume(0), metadata: { name: 'data-other-0', namespace: 'default' } } as KubeObject;
    const going = {
      ...volume(1),
      metadata: { ...volume(1).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
    } as KubeObject;
    const fresh = sync(
      request('mysqlcluster', { size: 3, version: '8.0' }, { related: objectMap([other, going]) }),
      now,
      newPassword,
    );
    t.ok(byKind(fresh.children)['Secret/my-mysql-mysql'], 'a new cluster gets its passwords');
  },
);

t.test(
  'customize asks by name, in its namespace, for every child, pod and volume either naming may take',
  async (t) => {
    const res = mysqlcluster.customize!(
      { controller: {}, parent: request('mysqlcluster', { size: 1 }).parent },
      {} as never,
    );
    // No rule by labels (Metacontroller v1.5.20 matches one by labels whatever the namespace): every rule names the
    // cluster's namespace, or is for the cluster-scoped StorageClass.
    t.same(
      res.relatedResources.filter(
        (r) => r.labelSelector || (r.namespace !== 'default' && r.resource !== 'storageclasses'),
      ),
      [],
    );
    const rule = (resource: string) => res.relatedResources.find((r) => r.resource === resource && r.names)!;
    // The member pods by name (memberPods), under either naming.
    for (const pod of ['my-mysql-0', 'my-mysql-8', 'my-mysql-mysql-0', 'my-mysql-mysql-8'])
      t.ok(rule('pods').names!.includes(pod), pod);
    // In the cluster's namespace: a names rule without one lists every namespace (v4.17).
    t.equal(rule('persistentvolumeclaims').namespace, 'default');
    t.same(
      rule('persistentvolumeclaims').names,
      [
        ...Array.from({ length: 9 }, (_, i) => `data-my-mysql-${i}`),
        ...Array.from({ length: 9 }, (_, i) => `data-my-mysql-mysql-${i}`),
      ].sort(),
    );
    t.same(rule('services').names, [
      'my-mysql',
      'my-mysql-headless',
      'my-mysql-mysql',
      'my-mysql-mysql-headless',
      'my-mysql-mysql-read',
      'my-mysql-read',
    ]);
    t.same(rule('statefulsets').names, ['my-mysql', 'my-mysql-mysql']);
    t.same(rule('secrets').names, ['my-mysql-mysql']);
    t.equal(rule('pods').names!.length, 18);
  },
);

t.test('password memory: each answer fed back as the next observed state, for several syncs', async (t) => {
  // Metacontroller's loop: the children answered are what the next sync observes (the Secret with them), the
  // status answered is the parent's status, and the StatefulSet makes its volumes once it exists.
  let generated = 0;
  const gen = () => `pw-${++generated}`;
  const spec = { size: 3, version: '8.0' };
  let children: KubeObject[] = [];
  let status: unknown;
  let related: KubeObject[] = [];
  const secrets: Array<Record<string, string>> = [];
  for (let i = 0; i < 6; i++) {
    const req = request('mysqlcluster', spec, {
      children: objectMap(children.map((c) => asObserved(c))),
      related: objectMap(related),
    });
    if (status) req.parent.status = status as any;
    const res = sync(req, new Date(now.getTime() + i * 60_000), gen);
    const secret = byKind(res.children)['Secret/my-mysql-mysql'];
    t.ok(secret, `sync ${i}: the Secret is answered`);
    secrets.push(secret.data);
    children = res.children;
    status = res.status;
    related = [0, 1, 2].map((i) => volume(i));
  }
  t.equal(generated, 2, 'two passwords (root, replication), generated once, on the first sync');
  for (const data of secrets) t.same(data, secrets[0], 'the same bytes at every sync');
  t.equal((status as any).secretName, 'my-mysql-mysql');
  // The Secret disappears: nothing is generated, the loss is reported, and stays reported.
  for (let i = 0; i < 2; i++) {
    const req = request('mysqlcluster', spec, {
      children: objectMap(children.filter((c) => c.kind !== 'Secret').map((c) => asObserved(c))),
      related: objectMap(related),
    });
    req.parent.status = status as any;
    const res = sync(req, now, gen);
    t.notOk(byKind(res.children)['Secret/my-mysql-mysql']);
    t.match(
      (res.status as any).conditions.find((c: any) => c.type === 'Ready'),
      { reason: 'CredentialsLost' },
    );
    children = res.children;
    status = res.status;
  }
  t.equal(generated, 2, 'still only the first two');
});

/** The variables a shell script reads (`$NAME`, `${NAME}`) that it does not set itself. */
function scriptVariables(script: string): string[] {
  const read = new Set([...script.matchAll(/\$\{?([A-Z_][A-Z0-9_]*)/g)].map((m) => m[1]!));
  for (const m of script.matchAll(/(?:^|[\s;(])([A-Z_][A-Z0-9_]*)=/gm)) read.delete(m[1]!);
  return [...read].sort();
}

t.test('the member pod is wired together: every script, probe, mount and Service finds what it names', async (t) => {
  const res = sync(request('mysqlcluster', { size: 3, version: '8.4' }), now, newPassword);
  const c = byKind(res.children);
  const sts = c['StatefulSet/my-mysql-mysql'];
  const pod = sts.spec.template.spec;
  const [init] = pod.initContainers;
  const [mysql, replication] = pod.containers;
  t.same(
    [init.name, mysql.name, replication.name],
    ['config', 'mysql', 'replication'],
    'the container names the status and probes read',
  );
  for (const x of [init, mysql, replication]) t.equal(x.image, 'mysql:8.4', x.name);
  t.same(init.command, ['bash', '-c', CONFIG_SCRIPT]);
  t.same(replication.command, ['bash', '-c', REPLICATION_SCRIPT]);
  t.same(replication.readinessProbe.exec.command, ['bash', '-c', REPLICATION_PROBE]);
  t.same(mysql.readinessProbe.exec.command, SERVER_PROBE);

  // Every variable a script reads is in its container's environment, with the value the pod needs.
  const envOf = (x: any) => Object.fromEntries(x.env.map((e: any) => [e.name, e]));
  const secretRef = (key: string) => ({ valueFrom: { secretKeyRef: { name: 'my-mysql-mysql', key } } });
  for (const [x, script] of [
    [init, CONFIG_SCRIPT],
    [replication, REPLICATION_SCRIPT + REPLICATION_PROBE],
  ] as const) {
    const env = envOf(x);
    for (const v of scriptVariables(script)) t.ok(env[v], `${x.name}: $${v} is set`);
  }
  const mountOf = (x: any, volume: string) => x.volumeMounts.find((m: any) => m.name === volume)?.mountPath;
  for (const x of [init, replication]) {
    const env = envOf(x);
    t.same(env['POD_NAME'], {
      name: 'POD_NAME',
      valueFrom: { fieldRef: { apiVersion: 'v1', fieldPath: 'metadata.name' } },
    });
    t.equal(env['CONF_DIR'].value, mountOf(x, 'conf'), `${x.name}: CONF_DIR is where conf is mounted`);
    t.equal(env['CLIENT_DIR'].value, mountOf(x, 'client'), `${x.name}: CLIENT_DIR is where client is mounted`);
    t.equal(env['MYSQL_PORT'].value, '3306');
  }
  t.match(envOf(init)['MYSQL_ROOT_PASSWORD'], secretRef(PASSWORD_KEY));
  t.match(envOf(mysql)['MYSQL_ROOT_PASSWORD'], secretRef(PASSWORD_KEY));
  t.same(envOf(mysql)['MYSQL_INITDB_SKIP_TZINFO'], { name: 'MYSQL_INITDB_SKIP_TZINFO', value: '1' });
  t.match(envOf(replication)['REPLICATION_PASSWORD'], secretRef(REPLICATION_KEY));
  t.equal(
    envOf(replication)['PRIMARY_HOST'].value,
    'my-mysql-mysql-0.my-mysql-mysql-headless.default.svc.cluster.local',
  );
  t.equal(envOf(replication)['PRIMARY_PORT'].value, '3306');
  t.same(Object.keys(c['Secret/my-mysql-mysql'].data).sort(), [REPLICATION_KEY, PASSWORD_KEY, PEERS_KEY].sort());
  // Member 0 reads which members may hold data from the Secret's peers key, mounted where PEERS_FILE points.
  t.equal(envOf(replication)['PEERS_FILE'].value, `${mountOf(replication, 'peers')}/${PEERS_KEY}`);
  t.equal(c['Secret/my-mysql-mysql'].type, 'Opaque');

  // The server's probe reads the client file the config script writes, in the client volume.
  t.ok(
    SERVER_PROBE.includes(`--defaults-extra-file=${mountOf(mysql, 'client')}/root.cnf`),
    'the probe reads the client directory',
  );
  t.equal(mountOf(mysql, 'conf'), mountOf(init, 'conf'), 'the server reads the configuration the init container wrote');
  t.equal(mountOf(mysql, 'data'), '/var/lib/mysql');
  // Every mount names a volume of the pod or a claim template; the password file's volume is in memory only.
  const volumes = new Map(pod.volumes.map((v: any) => [v.name, v]));
  const claims = sts.spec.volumeClaimTemplates.map((v: any) => v.metadata.name);
  t.same(claims, ['data']);
  for (const x of [init, mysql, replication])
    for (const m of x.volumeMounts) t.ok(volumes.has(m.name) || claims.includes(m.name), `${x.name}: ${m.name}`);
  t.same(volumes.get('client'), { name: 'client', emptyDir: { medium: 'Memory' } });
  t.same(volumes.get('conf'), { name: 'conf', emptyDir: {} });
  t.same(sts.spec.volumeClaimTemplates[0].spec.accessModes, ['ReadWriteOnce']);
  t.notOk('storageClassName' in sts.spec.volumeClaimTemplates[0].spec, 'the default storage class unless one is named');
  const fastRequest = request('mysqlcluster', {
    size: 1,
    version: '8.4',
    storage: { size: '2Gi', storageClassName: 'fast' },
  }) as any;
  // The class, as Metacontroller sends it (customize asks for it): one that provisions volumes.
  fastRequest.related = {
    ...(fastRequest.related ?? {}),
    'StorageClass.storage.k8s.io/v1': {
      fast: { apiVersion: 'storage.k8s.io/v1', kind: 'StorageClass', metadata: { name: 'fast' }, provisioner: 'x.csi' },
    },
  };
  const fast = sync(fastRequest, now, newPassword);
  t.equal(
    byKind(fast.children)['StatefulSet/my-mysql-mysql'].spec.volumeClaimTemplates[0].spec.storageClassName,
    'fast',
  );

  // The Services: each targets the named port the server listens on, and selects pods of the template.
  t.same(mysql.ports, [{ name: 'mysql', containerPort: 3306, protocol: 'TCP' }]);
  t.same(mysql.livenessProbe.tcpSocket, { port: 'mysql' });
  const podLabels = sts.spec.template.metadata.labels;
  for (const [svc, component] of [
    ['Service/my-mysql-mysql', 'primary'],
    ['Service/my-mysql-mysql-read', 'read'],
    ['Service/my-mysql-mysql-headless', 'database'],
  ] as const) {
    t.same(c[svc].spec.ports, [{ name: 'mysql', port: 3306, targetPort: 'mysql', protocol: 'TCP' }], svc);
    t.equal(c[svc].metadata.labels['app.kubernetes.io/component'], component, svc);
    for (const [k, v] of Object.entries(c[svc].spec.selector))
      if (k !== 'statefulset.kubernetes.io/pod-name') t.equal(podLabels[k], v, `${svc} selects ${k}`);
  }
  t.equal(c['Service/my-mysql-mysql'].spec.selector['statefulset.kubernetes.io/pod-name'], 'my-mysql-mysql-0');
  t.equal(c['Secret/my-mysql-mysql'].metadata.labels['app.kubernetes.io/component'], 'credentials');
  t.same(sts.metadata.labels, {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    'app.kubernetes.io/component': 'database',
    'app.kubernetes.io/managed-by': 'metaops',
    'app.kubernetes.io/version': '8.4',
  });
});

t.test('Replicating: each case with its words, and the primary named even when its pod is missing', async (t) => {
  const replicating = (size: number, pods: KubeObject[]) =>
    (
      sync(request('mysqlcluster', { size, version: '8.0' }, { related: objectMap(pods) }), now, newPassword)
        .status as any
    ).conditions.find((c: any) => c.type === 'Replicating');
  t.match(replicating(1, [memberPod(0)]), {
    status: 'True',
    reason: 'NoReplicas',
    message: 'the cluster is the primary alone',
  });
  t.match(replicating(0, []), { status: 'True', reason: 'NoReplicas' });
  t.match(replicating(3, [memberPod(0), memberPod(1)]), {
    status: 'False',
    reason: 'ReplicasMissing',
    message: '1 of 2 replicas exist',
  });
  t.match(replicating(3, [memberPod(0), memberPod(1), memberPod(2)]), {
    status: 'True',
    reason: 'AllReplicating',
    message: '2 replicas replicate from my-mysql-mysql-0',
  });
  // The primary's pod missing: nothing replicates from it, whatever the replicas' sidecars say (they stay Ready on
  // what they received); the primary is named.
  t.match(replicating(3, [memberPod(2), memberPod(1)]), {
    status: 'False',
    reason: 'PrimaryNotReady',
    message:
      'the primary my-mysql-mysql-0 does not exist: 2 replicas hold what they received and replicate nothing new',
  });
  t.match(replicating(3, [memberPod(0), memberPod(1, { replicating: false }), memberPod(2, { replicating: false })]), {
    status: 'False',
    reason: 'ReplicaNotReplicating',
    message:
      /^not Ready for reads, not replicating from the primary or still copying .*: my-mysql-mysql-1, my-mysql-mysql-2$/,
  });
});

t.test("members: by ordinal, only this cluster's, replication read from the container status as it is", async (t) => {
  const odd = (name: string, status: unknown) =>
    ({ ...memberPod(1), metadata: { ...memberPod(1).metadata, name }, status }) as KubeObject;
  const pods = [
    memberPod(10),
    memberPod(2, { replicating: false }),
    memberPod(0),
    odd('my-mysql-mysql-01', {}),
    odd('my-mysql-x', {}),
    odd('other-1', {}),
    odd('my-mysql', {}),
    odd('my-mysql-mysql-3', { containerStatuses: 'replication' }),
    odd('my-mysql-mysql-4', { containerStatuses: [null, 'replication', { name: 'replication', ready: 'true' }] }),
    odd('my-mysql-mysql-5', null),
  ];
  t.same(memberStates('my-mysql-mysql', pods), [
    { name: 'my-mysql-mysql-0', role: 'primary', ready: true },
    { name: 'my-mysql-mysql-2', role: 'replica', ready: true, replicating: false },
    { name: 'my-mysql-mysql-3', role: 'replica', ready: false, replicating: false },
    { name: 'my-mysql-mysql-4', role: 'replica', ready: false, replicating: false },
    { name: 'my-mysql-mysql-5', role: 'replica', ready: false, replicating: false },
    { name: 'my-mysql-mysql-10', role: 'replica', ready: true, replicating: true },
  ]);
  // Terminating pods are not members.
  const leaving = {
    ...memberPod(1),
    metadata: { ...memberPod(1).metadata, deletionTimestamp: '2026-01-01T00:00:00Z' },
  };
  const res = sync(
    request('mysqlcluster', { size: 2, version: '8.0' }, { related: objectMap([memberPod(0), leaving as KubeObject]) }),
    now,
    newPassword,
  );
  t.same(
    (res.status as any).members.map((m: any) => m.name),
    ['my-mysql-mysql-0'],
  );
});

t.test('the running version: the tag of each mysql container, whatever else the pods hold', async (t) => {
  const withContainers = (containers: unknown) => ({ ...memberPod(0), spec: { containers } }) as KubeObject;
  t.equal(runningVersion([]), undefined);
  t.equal(runningVersion([memberPod(0, { image: 'mysql:8.4' }), memberPod(1, { image: 'mysql:8.0' })]), '8.0, 8.4');
  t.equal(runningVersion([memberPod(0, { image: 'registry.local:5000/mysql' })]), undefined, 'a port is no tag');
  t.equal(runningVersion([memberPod(0, { image: 'registry.local:5000/mysql:8.4' })]), '8.4');
  // A policy that moves images to a mirror whose host is one label in capitals (a host to the kubelet's grammar) and
  // pins them by digest: the tag is still the version.
  t.equal(
    runningVersion([memberPod(0, { image: `Mirror/library/mysql:8.4.3@sha256:${'e'.repeat(64)}` })]),
    '8.4.3',
    'a one-label registry host in capitals, pinned by digest',
  );
  t.equal(runningVersion([memberPod(0, { image: 'mysql' })]), undefined);
  t.equal(
    runningVersion([
      withContainers('mysql:9'),
      withContainers([null, { name: 'mysql' }, { name: 'mysql', image: 7 }]),
      withContainers([{ name: 'replication', image: 'mysql:9.9' }]),
      { ...memberPod(0), spec: null } as unknown as KubeObject,
    ]),
    undefined,
  );
});

t.test('a version of the wrong type is said as such; anything else is left to the schema', async (t) => {
  t.equal(versionTypeProblem(null), undefined);
  t.equal(versionTypeProblem('8.0'), undefined);
  t.equal(versionTypeProblem({}), undefined);
  t.equal(versionTypeProblem({ version: '8.0' }), undefined);
  t.equal(versionTypeProblem({ version: 8 }), undefined);
  t.equal(
    versionTypeProblem({ version: [8] }),
    'spec.version is [8]: expected a MySQL version as a string, such as "8.0" or "8.0.36" (an unquoted 8.0 is read as 8, which means 8.0)',
  );
  t.match(versionTypeProblem({ version: true }), /^spec.version is true: /);
});

t.test(
  'storage: the stored claim templates kept, their data claim read wherever it is, a resize said when asked',
  async (t) => {
    const stored = (templates: unknown[]) => ({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'my-mysql-mysql', namespace: 'default' },
      spec: { replicas: 1, volumeClaimTemplates: templates },
    });
    const claim = (name: string, size: string) => ({
      metadata: { name },
      spec: { resources: { requests: { storage: size } } },
    });
    const resized = (templates: unknown[], size = '1Gi') => {
      const res = sync(
        request(
          'mysqlcluster',
          { size: 1, version: '8.0', storage: { size } },
          { children: objectMap([stored(templates)]) },
        ),
        now,
        newPassword,
      );
      return {
        templates: byKind(res.children)['StatefulSet/my-mysql-mysql'].spec.volumeClaimTemplates,
        condition: (res.status as any).conditions.find((c: any) => c.type === 'StorageResized'),
      };
    };
    const templates = [claim('logs', '5Gi'), claim('data', '1Gi')];
    t.same(resized(templates).templates, templates, 'handed back as stored');
    t.equal(resized(templates).condition, undefined, 'the data claim is 1Gi as asked: nothing to say');
    t.match(resized(templates, '2Gi').condition, {
      status: 'False',
      reason: 'StorageImmutable',
      message:
        'member volumes are 1Gi; spec.storage.size 2Gi applies only to a new cluster (resize the PersistentVolumeClaims directly)',
    });
    t.match(
      resized([claim('other', '2Gi'), claim('more', '3Gi')]).condition,
      { message: /^member volumes are 2Gi;/ },
      'the first claim when none is named data',
    );
    t.equal(resized([null, 'x']).condition, undefined, 'a size that cannot be read is not said to differ');
    // No stored templates: the spec's.
    t.equal(resized([]).templates[0].spec.resources.requests.storage, '1Gi');
  },
);

t.test("existing volumes: this cluster's claims that are not going away, by name", async (t) => {
  const labels = {
    'app.kubernetes.io/name': 'mysql',
    'app.kubernetes.io/instance': 'my-mysql',
    [CLAIM_UID_LABEL]: PARENT_UID,
  };
  const claim = (name: string, extra: Record<string, unknown> = {}) => ({
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: 'default', labels, ...extra },
  });
  const req = request(
    'mysqlcluster',
    { size: 1, version: '8.0' },
    {
      related: objectMap([
        claim('data-my-mysql-mysql-1'),
        claim('data-my-mysql-mysql-0'),
        claim('data-my-mysql-mysql-9'),
        claim('data-my-mysql-mysql-8'),
        claim('data-other-0'),
        claim('data-my-mysql-mysql-2', { deletionTimestamp: '2026-01-01T00:00:00Z' }),
      ]),
    },
  );
  t.same(existingVolumes(req, namesOf('my-mysql')), [
    'data-my-mysql-mysql-0',
    'data-my-mysql-mysql-1',
    'data-my-mysql-mysql-8',
  ]);
});

t.test('an invalid spec keeps the conditions other than Ready, whatever else the list holds', async (t) => {
  // A child is observed (what Available said may still hold: lib/hook.ts keptConditionsHold).
  const secret = { apiVersion: 'v1', kind: 'Secret', metadata: { name: 'my-mysql-mysql', namespace: 'default' } };
  const req = request('mysqlcluster', { size: 1, version: '8.0' }, { children: objectMap([secret as KubeObject]) });
  req.parent.status = {
    conditions: [null, 'x', { type: 'Ready', status: 'True' }, { type: 'Available', status: 'True' }],
  };
  const res = invalid(req, 'bad', now);
  t.same(
    (res.status as any).conditions.map((c: any) => [c.type, c.reason ?? c.status]),
    [
      ['Ready', 'InvalidSpec'],
      ['Available', 'True'],
    ],
  );
});

t.test('customize without a parent, and in a namespace', async (t) => {
  t.same(customize({ controller: {} } as never), { relatedResources: [] });
  t.same(mysqlcluster.customize!({ controller: {} }, {} as never).relatedResources.length, 0, 'no parent: no names');
  const there = mysqlcluster.customize!(
    { controller: {}, parent: { ...request('mysqlcluster', {}).parent, metadata: { name: 'db', namespace: 'prod' } } },
    {} as never,
  );
  const claims = there.relatedResources.find((r) => r.resource === 'persistentvolumeclaims')!;
  t.equal(claims.namespace, 'prod');
  t.equal(claims.names![0], 'data-db-0');
});

t.test('names users and the image rely on: the Secret keys, the configuration directory', async (t) => {
  // Existing clusters' Secrets hold these keys, and people read the password from them (docs/mysqlcluster.md).
  t.equal(PASSWORD_KEY, 'root-password');
  t.equal(REPLICATION_KEY, 'replication-password');
  const res = sync(request('mysqlcluster', { size: 1, version: '8.0' }), now, newPassword);
  const sts = byKind(res.children)['StatefulSet/my-mysql-mysql'];
  // The official image reads every .cnf file of /etc/mysql/conf.d.
  t.same(
    sts.spec.template.spec.containers[0].volumeMounts.find((m: any) => m.name === 'conf'),
    { name: 'conf', mountPath: '/etc/mysql/conf.d' },
  );
});

t.test('a healthy cluster is Ready; size 0 names no primary', async (t) => {
  const sts = {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'my-mysql-mysql', namespace: 'default' },
    spec: { replicas: 2 },
    status: { replicas: 2, readyReplicas: 2, updatedReplicas: 2, currentReplicas: 2 },
  };
  const secret = {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: { name: 'my-mysql-mysql', namespace: 'default' },
    data: { [PASSWORD_KEY]: 'cm9vdA==', [REPLICATION_KEY]: 'cmVwbA==' },
  };
  const res = sync(
    request(
      'mysqlcluster',
      { size: 2, version: '8.0' },
      { children: objectMap([sts, secret]), related: objectMap([memberPod(0), memberPod(1)]) },
    ),
    now,
    newPassword,
  );
  t.match(
    (res.status as any).conditions.find((c: any) => c.type === 'Ready'),
    { status: 'True' },
  );
  t.equal((res.status as any).primary, 'my-mysql-mysql-0');
  const none = sync(request('mysqlcluster', { size: 0, version: '8.0' }), now, newPassword);
  t.notOk('primary' in (none.status as any), 'no member, no primary');
});

t.test("members are this cluster's pods only, whatever the length of the names", async (t) => {
  const named = (name: string) => ({ ...memberPod(0), metadata: { ...memberPod(0).metadata, name } }) as KubeObject;
  // `zz-1` is as long as `db-1`: only the prefix tells them apart.
  t.same(
    memberStates('db', [named('db-0'), named('zz-1'), named('db-1')]).map((m) => m.name),
    ['db-0', 'db-1'],
  );
});

t.test(
  'a name too long for the StatefulSet (its revision label) or the Services is refused, the suffix counted',
  async (t) => {
    for (const [length, refused] of [
      [46, false],
      [47, true],
    ] as const) {
      const req = request('mysqlcluster', { size: 1, version: '8.0' });
      req.parent.metadata.name = 'm'.repeat(length);
      const res = sync(req, now, newPassword);
      const ready = (res.status as any).conditions.find((c: any) => c.type === 'Ready');
      if (refused) {
        t.same(res.children, [], `${length}: nothing applied`);
        t.match(ready, {
          reason: 'InvalidSpec',
          message: new RegExp(
            `^metadata.name "m{47}" cannot name StatefulSet "m{47}-mysql": it must be at most 52 characters \\(it has 53\\) \\(a StatefulSet's pods carry its name`,
          ),
        });
      } else t.not(ready.reason, 'InvalidSpec', `${length}: fits`);
    }
    // A cluster made before the suffix keeps its names: its limit is its own (52, the StatefulSet <name>).
    for (const [length, refused] of [
      [52, false],
      [53, true],
    ] as const) {
      const name = 'm'.repeat(length);
      const sts = { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name, namespace: 'default' }, spec: {} };
      const req = request('mysqlcluster', { size: 1, version: '8.0' }, { children: objectMap([sts]) });
      req.parent.metadata.name = name;
      const ready = (sync(req, now, newPassword).status as any).conditions.find((c: any) => c.type === 'Ready');
      if (refused)
        t.match(ready, { reason: 'InvalidSpec', message: /cannot name StatefulSet "m{53}": it must be at most 52/ });
      else t.not(ready.reason, 'InvalidSpec', `legacy ${length}: fits`);
    }
  },
);

t.test('stored claim templates without a readable size: no resize said, no failure', async (t) => {
  for (const data of [
    { metadata: { name: 'data' } },
    { metadata: { name: 'data' }, spec: {} },
    {
      metadata: { name: 'data' },
      spec: { resources: {} },
    },
  ]) {
    const sts = {
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: 'my-mysql-mysql', namespace: 'default' },
      spec: { replicas: 1, volumeClaimTemplates: [data] },
    };
    const res = sync(
      request('mysqlcluster', { size: 1, version: '8.0' }, { children: objectMap([sts]) }),
      now,
      newPassword,
    );
    t.equal(
      (res.status as any).conditions.find((c: any) => c.type === 'StorageResized'),
      undefined,
    );
    t.same(byKind(res.children)['StatefulSet/my-mysql-mysql'].spec.volumeClaimTemplates, [data], 'kept as stored');
  }
});

t.test('a MySQLCluster whose name cannot name its Service (a dot) is refused for its name', async (t) => {
  // A request without a name is refused before any hook (test/lib/unnamed-parent-refused.test.ts); a stored name
  // with a dot is a valid object name that no Service can carry.
  const req = request('mysqlcluster', { size: 1, version: '8.0' });
  req.parent.metadata.name = 'my.db';
  const res = sync(req, now, newPassword);
  t.same(res.children, []);
  t.match((res.status as any).conditions[0], {
    reason: 'InvalidSpec',
    message:
      'metadata.name "my.db" cannot name Service "my.db-mysql-headless": it must start with a letter and contain only lower-case letters, digits and \'-\' (a DNS-1035 label)',
  });
});
