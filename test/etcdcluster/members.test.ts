// What an EtcdCluster member is made of (hooks/etcdcluster/members.ts), checked field by field in the fast suite:
// the etcd flags, the TLS files, the readiness probe, the data volume, the restore steps, the pod policy, the
// Services and the disruption budget. The real-etcd suite (npm run test:real) runs these pods; this file says
// what they must be, so that a changed flag or path is caught without Go or root.
import t from 'tap';
import {
  clusterOf,
  disruptionBudget,
  etcdVersion,
  memberClaim,
  memberCommand,
  memberHost,
  memberPod,
  podOfPeerURL,
  restoreInitContainers,
  services,
} from '../../hooks/etcdcluster/members.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';

const TLS = { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'op' } };
const SOURCE = { s3: { path: 'bucket/snap.db', awsSecret: 'aws' }, image: 'metaops:test' };
/** A member's etcdctl `args` under client TLS: to itself (localhost), with its server certificate. */
const tlsEtcdctl = (...args: string[]) => [
  '/usr/local/bin/etcdctl',
  '--endpoints=https://localhost:2379',
  '--cacert=/etc/etcdtls/member/server-tls/server-ca.crt',
  '--cert=/etc/etcdtls/member/server-tls/server.crt',
  '--key=/etc/etcdtls/member/server-tls/server.key',
  ...args,
];
const podOf = (s: Record<string, unknown>, restore?: typeof SOURCE) =>
  memberPod({
    parent: etcdParent(s),
    spec: etcdSpec(s),
    name: 'e-0',
    initialCluster: 'e-0=http://x:2380',
    state: 'new',
    restore,
  }) as any;

t.test('the etcd flags of a member, plain and with TLS', async (t) => {
  const plain = clusterOf(etcdParent({}), etcdSpec({}));
  t.same(memberCommand(plain, 'e-1', 'e-0=a,e-1=b', 'existing', 'uid-e'), [
    '/usr/local/bin/etcd',
    '--data-dir=/var/etcd/data',
    '--name=e-1',
    '--initial-advertise-peer-urls=http://e-1.e.ns.svc:2380',
    '--listen-peer-urls=http://0.0.0.0:2380',
    '--listen-client-urls=http://0.0.0.0:2379',
    '--advertise-client-urls=http://e-1.e.ns.svc:2379',
    '--initial-cluster=e-0=a,e-1=b',
    '--initial-cluster-state=existing',
    '--initial-cluster-token=uid-e',
  ]);
  const tls = clusterOf(etcdParent({ TLS }), etcdSpec({ TLS }));
  t.same(memberCommand(tls, 'e-0', 'i', 'new', 'tok').slice(3), [
    '--initial-advertise-peer-urls=https://e-0.e.ns.svc:2380',
    '--listen-peer-urls=https://0.0.0.0:2380',
    '--listen-client-urls=https://0.0.0.0:2379',
    '--advertise-client-urls=https://e-0.e.ns.svc:2379',
    '--initial-cluster=i',
    '--initial-cluster-state=new',
    '--initial-cluster-token=tok',
    '--peer-client-cert-auth=true',
    '--peer-trusted-ca-file=/etc/etcdtls/member/peer-tls/peer-ca.crt',
    '--peer-cert-file=/etc/etcdtls/member/peer-tls/peer.crt',
    '--peer-key-file=/etc/etcdtls/member/peer-tls/peer.key',
    '--client-cert-auth=true',
    '--trusted-ca-file=/etc/etcdtls/member/server-tls/server-ca.crt',
    '--cert-file=/etc/etcdtls/member/server-tls/server.crt',
    '--key-file=/etc/etcdtls/member/server-tls/server.key',
  ]);
  // Peer TLS alone: client URLs stay http.
  const peerOnly = { static: { member: { peerSecret: 'peer' } } };
  const p = clusterOf(etcdParent({ TLS: peerOnly }), etcdSpec({ TLS: peerOnly }));
  t.same([p.peerTLS, p.clientTLS], [true, false]);
  t.ok(memberCommand(p, 'e-0', 'i', 'new', 't').includes('--listen-client-urls=http://0.0.0.0:2379'));
});

t.test('member names, hosts and domains', async (t) => {
  const c = clusterOf(
    etcdParent({ pod: { clusterDomain: '.cluster.local' } }),
    etcdSpec({ pod: { clusterDomain: '.cluster.local' } }),
  );
  t.equal(memberHost(c, 'e-2'), 'e-2.e.ns.svc.cluster.local');
  t.equal(podOfPeerURL(c, 'http://e-2.e.ns.svc.cluster.local:2380'), 'e-2');
  t.equal(podOfPeerURL(c, 'http://e-2.other.ns.svc.cluster.local:2380'), undefined);
  t.equal(podOfPeerURL(c, 'not a url'), undefined);
  const noNamespace = etcdParent({});
  delete noNamespace.metadata.namespace;
  t.equal(clusterOf(noNamespace, etcdSpec({})).namespace, 'default');
  t.equal(etcdVersion(' v3.5.17 '), '3.5.17');
  t.equal(etcdVersion('3.5.17'), '3.5.17');
});

t.test('a member pod: container, probe, volumes, labels and annotations', async (t) => {
  const pod = podOf({ version: 'v3.5.9' });
  const c = pod.spec.containers[0];
  t.equal(c.name, 'etcd');
  t.equal(c.image, 'quay.io/coreos/etcd:v3.5.9');
  t.same(c.ports, [
    { name: 'client', containerPort: 2379, protocol: 'TCP' },
    { name: 'peer', containerPort: 2380, protocol: 'TCP' },
  ]);
  t.same(c.env, [{ name: 'ETCDCTL_API', value: '3' }]);
  t.same(c.volumeMounts, [{ name: 'etcd-data', mountPath: '/var/etcd' }]);
  t.same(c.readinessProbe.exec.command, [
    '/usr/local/bin/etcdctl',
    '--endpoints=http://localhost:2379',
    'alarm',
    'list',
  ]);
  t.notOk(c.resources);
  t.same(pod.spec.volumes, [{ name: 'etcd-data', emptyDir: {} }]);
  t.equal(pod.spec.hostname, 'e-0');
  t.equal(pod.spec.subdomain, 'e');
  // Restarted in place when etcd exits (issue 30.1); its own DNS name waited for first (issue 30.6).
  t.equal(pod.spec.restartPolicy, 'Always');
  t.same(pod.spec.initContainers, [
    {
      name: 'check-dns',
      image: 'busybox:1.28.0-glibc',
      command: [
        '/bin/sh',
        '-c',
        [
          'TIMEOUT_READY=0',
          // A relative name (a cluster that keeps the names its members were made with): also under each search
          // domain, for a resolver that does not search a name with a dot under the pod's ndots 1 (musl).
          'found() {',
          '  nslookup e-0.e.ns.svc && return 0',
          "  for d in $(sed -n 's/^search //p' /etc/resolv.conf); do nslookup e-0.e.ns.svc.$d && return 0; done",
          '  return 1',
          '}',
          'while ( ! found )',
          'do',
          '  # If TIMEOUT_READY is 0 we should never time out and exit',
          '  TIMEOUT_READY=$(( TIMEOUT_READY-1 ))',
          '  if [ $TIMEOUT_READY -eq 0 ];',
          '  then',
          '    echo "Timed out waiting for DNS entry"',
          '    exit 1',
          '  fi',
          '  sleep 1',
          'done',
        ].join('\n'),
      ],
      securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
    },
  ]);
  const dns = podOf({ pod: { busyboxImage: 'registry.local/busybox:1.36', DNSTimeoutInSecond: 90 } }).spec
    .initContainers[0];
  t.equal(dns.image, 'registry.local/busybox:1.36', 'spec.pod.busyboxImage');
  t.match(dns.command[2], /^TIMEOUT_READY=90\n/, 'spec.pod.DNSTimeoutInSecond');
  t.match(
    podOf({ pod: { clusterDomain: 'cluster.local' } }).spec.initContainers[0].command[2],
    /\nwhile \( ! nslookup e-0\.e\.ns\.svc\.cluster\.local \)\n/,
    'the name etcd advertises, fully qualified: looked up as it is',
  );
  t.notOk(pod.spec.affinity);
  t.notOk(pod.spec.nodeSelector);
  t.notOk(pod.spec.tolerations);
  t.equal(pod.spec.securityContext.fsGroupChangePolicy, 'OnRootMismatch');
  t.match(pod.metadata.labels, { app: 'etcd', etcd_cluster: 'e', etcd_node: 'e-0' });
  t.equal(
    podOf({ pod: { labels: { etcd_node: 'x', etcd_cluster: 'x', team: 't' } } }).metadata.labels.etcd_node,
    'e-0',
    "etcd-operator's etcd_node label names the member; a pod label cannot override it",
  );
  t.same(pod.metadata.annotations, {
    'etcd.version': '3.5.9',
    'etcd.metaops.io/image': 'quay.io/coreos/etcd:v3.5.9',
    // The fingerprint of the spec.pod it was made from (plan/respec.ts): here none.
    'etcd.metaops.io/pod-spec': '44136fa355b3678a',
  });

  const tls = podOf({ TLS }).spec;
  t.same(tls.volumes.slice(1), [
    { name: 'member-peer-tls', secret: { secretName: 'peer' } },
    { name: 'member-server-tls', secret: { secretName: 'server' } },
  ]);
  t.same(tls.containers[0].volumeMounts.slice(1), [
    { name: 'member-peer-tls', mountPath: '/etc/etcdtls/member/peer-tls', readOnly: true },
    { name: 'member-server-tls', mountPath: '/etc/etcdtls/member/server-tls', readOnly: true },
  ]);
  t.same(tls.containers[0].readinessProbe.exec.command, tlsEtcdctl('alarm', 'list'));
  const stored = podOf({ pod: { persistentVolumeClaimSpec: { resources: { requests: { storage: '1Gi' } } } } });
  // And, made fresh on its claim, the emptyDir its data check records its first start on (members.ts freshDataCheck).
  t.same(stored.spec.volumes, [
    { name: 'etcd-data', persistentVolumeClaim: { claimName: 'e-0' } },
    { name: 'member-started', emptyDir: { sizeLimit: '1Mi' } },
  ]);
});

t.test('a member pod: its liveness probe asks the member alone, by version', async (t) => {
  const probes = (version: string, extra: Record<string, unknown> = {}) => {
    const c = podOf({ version, ...extra }).spec.containers[0];
    return { c, metrics: c.command.filter((a: string) => a.startsWith('--listen-metrics-urls')) };
  };
  const timing = {
    startup: { periodSeconds: 10, timeoutSeconds: 10, failureThreshold: 60 },
    liveness: { periodSeconds: 30, timeoutSeconds: 10, failureThreshold: 6 },
  };
  // etcd 3.6+: /livez on the metrics listener (a serializable read of its own store; no leader, no alarm asked).
  for (const v of ['3.6.9', 'v3.6.0-rc.1', '3.7.0']) {
    const { c, metrics } = probes(v);
    t.same(metrics, ['--listen-metrics-urls=http://0.0.0.0:2381'], `${v}: the metrics listener`);
    const get = { httpGet: { path: '/livez', port: 2381, scheme: 'HTTP' } };
    t.same(c.livenessProbe, { ...get, ...timing.liveness }, `${v}: /livez`);
    t.same(c.startupProbe, { ...get, ...timing.startup }, `${v}: the same check, 10 minutes to start`);
  }
  // 3.3 to 3.5: /metrics there (/livez came with 3.5.11; /health asks for quorum or fails on an alarm there).
  for (const v of ['3.3.0', '3.4.27', '3.5.21']) {
    const { c, metrics } = probes(v);
    t.same(metrics, ['--listen-metrics-urls=http://0.0.0.0:2381'], `${v}: the metrics listener`);
    t.same(c.livenessProbe.httpGet, { path: '/metrics', port: 2381, scheme: 'HTTP' }, `${v}: /metrics`);
  }
  // Under client TLS the metrics listener stays plain HTTP: no certificate for the kubelet to present.
  t.same(probes('3.6.9', { TLS }).c.livenessProbe.httpGet, { path: '/livez', port: 2381, scheme: 'HTTP' });
  // Before 3.3 (the default 3.2.13): no metrics listener (etcd would refuse the flag); the member's own Status.
  const old = probes('3.2.13');
  t.same(old.metrics, [], '3.2: no --listen-metrics-urls');
  t.same(old.c.livenessProbe, {
    exec: { command: ['/usr/local/bin/etcdctl', '--endpoints=http://localhost:2379', 'endpoint', 'status'] },
    ...timing.liveness,
  });
  t.same(probes('3.2.13', { TLS }).c.livenessProbe.exec.command, tlsEtcdctl('endpoint', 'status'));
});

t.test('a member pod: its readiness probe asks for quorum without credentials, by version', async (t) => {
  const readiness = (version: string, extra: Record<string, unknown> = {}) =>
    podOf({ version, ...extra }).spec.containers[0].readinessProbe;
  const timing = { initialDelaySeconds: 1, periodSeconds: 5, timeoutSeconds: 5, failureThreshold: 3 };
  // etcd 3.6+: /readyz on the metrics listener (quorum read as root, not a learner; a CORRUPT alarm left out: the
  // cluster's, it would make every member NotReady at once), also under client TLS.
  for (const v of ['3.6.9', 'v3.6.0-rc.1', '3.7.0']) {
    const get = { httpGet: { path: '/readyz?exclude=data_corruption', port: 2381, scheme: 'HTTP' } };
    t.same(readiness(v), { ...get, ...timing }, `${v}: /readyz`);
    t.same(readiness(v, { TLS }), { ...get, ...timing }, `${v} under TLS: /readyz`);
  }
  // Before 3.6: etcdctl alarm list (through raft: quorum; a learner refused; no credentials asked before 3.6).
  for (const v of ['3.2.13', '3.3.0', '3.4.27', '3.5.21']) {
    const p = readiness(v);
    t.same(
      p,
      {
        exec: { command: ['/usr/local/bin/etcdctl', '--endpoints=http://localhost:2379', 'alarm', 'list'] },
        ...timing,
      },
      `${v}: alarm list`,
    );
  }
  // Under client TLS, with the member's server certificate (the member's own name: localhost).
  t.same(readiness('3.5.21', { TLS }).exec.command, tlsEtcdctl('alarm', 'list'));
});

t.test("a member pod follows the spec's pod policy", async (t) => {
  const policy = {
    resources: { limits: { memory: '1Gi' } },
    nodeSelector: { disk: 'ssd' },
    tolerations: [{ key: 'k', operator: 'Exists' }],
    etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '1' }],
    labels: { team: 'a', app: 'not-this' },
    annotations: { note: 'x', 'etcd.version': 'not-this' },
    securityContext: { runAsUser: 2000 },
    affinity: { nodeAffinity: { preferred: true } },
  };
  const pod = podOf({ pod: policy });
  t.same(pod.spec.containers[0].resources, policy.resources);
  t.same(pod.spec.nodeSelector, policy.nodeSelector);
  t.same(pod.spec.tolerations, policy.tolerations);
  t.same(pod.spec.containers[0].env, [{ name: 'ETCDCTL_API', value: '3' }, ...policy.etcdEnv]);
  t.equal(pod.metadata.labels.team, 'a');
  t.equal(pod.metadata.labels.app, 'etcd', 'the selector labels win');
  t.same(pod.metadata.annotations, {
    note: 'x',
    'etcd.version': '3.5.0',
    'etcd.metaops.io/image': 'quay.io/coreos/etcd:v3.5.0',
    'etcd.metaops.io/pod-spec': 'b2b71d8a137bc1f6',
  });
  t.equal(pod.spec.securityContext.runAsUser, 2000);
  t.same(pod.spec.affinity, { nodeAffinity: { preferred: true } });
  const anti = podOf({ pod: { ...policy, antiAffinity: true } });
  t.same(anti.spec.affinity, {
    nodeAffinity: { preferred: true },
    podAntiAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        // Its own members only: another pod labelled etcd_cluster=e keeps no member off a node.
        {
          labelSelector: { matchLabels: { 'etcdcluster.metaops.io/instance': 'e' } },
          topologyKey: 'kubernetes.io/hostname',
        },
      ],
    },
  });
  t.same(Object.keys(podOf({ pod: { antiAffinity: true } }).spec.affinity), ['podAntiAffinity']);
});

t.test('a restored member: fetch the snapshot, then restore it with the tool of its etcd version', async (t) => {
  const pod = podOf({ version: '3.5.9' }, SOURCE);
  const [dnsCheck, fetch, restore, place] = pod.spec.initContainers;
  t.equal(dnsCheck.name, 'check-dns', 'the DNS wait first');
  t.equal(fetch.name, 'fetch-snapshot');
  t.equal(fetch.image, 'metaops:test');
  t.same(fetch.args.slice(0, 9), [
    'etcd-restore-fetch',
    '--s3-path',
    'bucket/snap.db',
    '--file',
    '/var/etcd/snapshot.db',
    '--restore-dir',
    '/var/etcd/restored',
    '--data-dir',
    '/var/etcd/data',
  ]);
  t.same(fetch.volumeMounts[0], { name: 'etcd-data', mountPath: '/var/etcd' });
  t.equal(restore.name, 'restore-snapshot');
  t.equal(restore.image, 'quay.io/coreos/etcd:v3.5.9');
  t.same(restore.command, [
    '/usr/local/bin/etcdutl',
    'snapshot',
    'restore',
    '/var/etcd/snapshot.db',
    '--data-dir=/var/etcd/restored',
    '--name=e-0',
    '--initial-cluster=e-0=http://x:2380',
    '--initial-advertise-peer-urls=http://e-0.e.ns.svc:2380',
    '--initial-cluster-token=uid-e',
  ]);
  t.same(restore.env, [{ name: 'ETCDCTL_API', value: '3' }]);
  t.same(restore.volumeMounts, [{ name: 'etcd-data', mountPath: '/var/etcd' }]);
  // Restored aside, then placed: steps run again after the member started leave its data (a sandbox recreated).
  t.same(place, {
    name: 'place-snapshot',
    image: 'metaops:test',
    command: ['node', '/app/dist/main/cli.js'],
    args: ['etcd-restore-place', '--restore-dir', '/var/etcd/restored', '--data-dir', '/var/etcd/data'],
    volumeMounts: [{ name: 'etcd-data', mountPath: '/var/etcd' }],
    securityContext: { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } },
  });
  // etcdutl from 3.5 on (4.x too); etcdctl before.
  const tool = (version: string) => podOf({ version }, SOURCE).spec.initContainers[2].command[0];
  t.equal(tool('3.4.27'), '/usr/local/bin/etcdctl');
  t.equal(tool('3.6.0'), '/usr/local/bin/etcdutl');
  t.equal(tool('4.0.0'), '/usr/local/bin/etcdutl');
  t.equal(tool('2.9.0'), '/usr/local/bin/etcdctl');
  // Without an initial cluster given, a member restores alone.
  const c = clusterOf(etcdParent({}), etcdSpec({}));
  const alone = restoreInitContainers(c, etcdSpec({}), 'e-4', 'tok', SOURCE) as any[];
  t.ok(alone[1].command.includes('--initial-cluster=e-4=http://e-4.e.ns.svc:2380'));
});

t.test('claims, Services and the disruption budget', async (t) => {
  const claim = memberClaim(etcdParent({}), etcdSpec({ pod: { persistentVolumeClaimSpec: { a: 1 } } }), 'e-3') as any;
  t.same(
    [claim.kind, claim.metadata.name, claim.metadata.namespace, claim.spec],
    ['PersistentVolumeClaim', 'e-3', 'ns', { a: 1 }],
  );
  t.match(claim.metadata.labels, { app: 'etcd', etcd_cluster: 'e' });
  const [peer, client] = services(etcdParent({})) as any[];
  t.same(
    [peer.metadata.name, peer.spec.clusterIP, peer.spec.ports],
    [
      'e',
      'None',
      [
        { name: 'client', port: 2379, targetPort: 'client', protocol: 'TCP' },
        { name: 'peer', port: 2380, targetPort: 'peer', protocol: 'TCP' },
      ],
    ],
  );
  const own = { app: 'etcd', etcd_cluster: 'e', 'etcdcluster.metaops.io/instance': 'e' };
  t.same(peer.spec.selector, own, 'its own member pods only');
  t.same(client.spec.selector, own);
  const [legacyPeer, legacyClient] = services(etcdParent({}), false) as any[];
  t.same([legacyPeer.spec.selector, legacyClient.spec.selector], Array(2).fill({ app: 'etcd', etcd_cluster: 'e' }));
  t.equal(client.metadata.name, 'e-client');
  t.same(client.spec.ports, [{ name: 'client', port: 2379, targetPort: 'client', protocol: 'TCP' }]);
  t.not(client.spec.clusterIP, 'None');
  const pdb = (size: number, voters?: number, pods?: number) =>
    (disruptionBudget(etcdParent({}), size, voters, pods) as any).spec.minAvailable;
  t.same([pdb(1), pdb(2), pdb(3), pdb(4), pdb(5)], [1, 2, 2, 3, 3]);
  t.equal(pdb(3, 5, 5), 4, 'shrinking 5 -> 3: only one may go');
  t.equal(pdb(5, 3, 4), 3, 'growing 3 -> 5 with a learner: one may go');
  t.same((disruptionBudget(etcdParent({}), 3) as any).spec.selector, { matchLabels: own });
  t.same((disruptionBudget(etcdParent({}), 3, 3, 3, false) as any).spec.selector, {
    matchLabels: { app: 'etcd', etcd_cluster: 'e' },
  });
});
