// EtcdCluster and EtcdBackup over TLS on real etcd: certificates made here with openssl (test/fixtures/pki.ts),
// member pods run by the test kubelet with their Secret volumes written to files (test/fixtures/etcd-kubelet.ts),
// the hook driven as Metacontroller would, reading the Secrets as related objects. One cluster is reused from
// scenario to scenario (each starts from the previous one's settled state), to keep the CI time small.
import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect } from 'node:tls';
import { promisify } from 'node:util';
import { CreateBucketCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import t from 'tap';
import { HttpEtcdClient, type TlsFiles } from '../../hooks/etcdcommon/etcd.js';
import { BackupRig } from '../fixtures/backup-kubelet.js';
import { tenancyFromEnv } from '../../hooks/etcdcommon/tenancy.js';
import { call } from '../../lib/http.js';
import type { CompositeSyncResponse, KubeObject } from '../../lib/metacontroller.js';
import { EtcdKubelet, etcdBin } from '../fixtures/etcd-kubelet.js';
import { startMoto, type Moto } from '../fixtures/moto.js';
import { Pki } from '../fixtures/pki.js';
import { root } from '../fixtures/requests.js';
import { condition, status } from '../fixtures/etcd-status.js';

etcdBin(); // build or find the binaries before the clock starts

const NAME = 'tls';
const NS = 'default';
// The SANs etcd-operator's TLS guide asks for (the members' DNS names, with and without the cluster domain, and
// the client Service), plus localhost and 127.0.0.1: see PEER_SAN below for why the test needs those.
const SERVER_SAN = `DNS:*.${NAME}.${NS}.svc,DNS:*.${NAME}.${NS}.svc.cluster.local,DNS:${NAME}-client.${NS}.svc,DNS:localhost,IP:127.0.0.1`;
// A peer certificate is also the client certificate a member presents to the others; etcd checks it against
// the address the connection comes from (pkg/transport: the IP SANs, else a reverse lookup of that address
// matched to the DNS SANs). In the test kubelet every connection between members comes from 127.0.0.1, which
// reverse-resolves to localhost, not to a member's name: the peer certificate names 127.0.0.1 for that. (In a
// cluster the pod's address reverse-resolves to <pod>.<cluster>.<namespace>.svc.<cluster domain>, which the
// cluster-domain wildcard covers.)
const PEER_SAN = `DNS:*.${NAME}.${NS}.svc,DNS:*.${NAME}.${NS}.svc.cluster.local,IP:127.0.0.1`;

const pki = new Pki('etcd-test-ca');
const ca = pki.read('ca.crt');
const peer = pki.issue('peer', 'etcd-peer', { san: PEER_SAN });
const server = pki.issue('server', 'etcd-server', { san: SERVER_SAN });
const operator = pki.issue('operator', 'metaops-operator');
const operatorData = (files = operator, caFile = ca) => ({
  'etcd-client-ca.crt': caFile,
  'etcd-client.crt': files.cert,
  'etcd-client.key': files.key,
});
const operatorFiles: TlsFiles = { ca: ca.toString(), cert: operator.cert.toString(), key: operator.key.toString() };

const settled = (size: number, version?: string) => (res: CompositeSyncResponse) => {
  const s = status(res);
  return (
    s.members?.ready?.length === size &&
    s.members.unready.length === 0 &&
    s.size === size &&
    condition(res, 'Scaling')?.status === 'False' &&
    condition(res, 'Upgrading')?.status === 'False' &&
    !condition(res, 'Synced') &&
    (!version || s.currentVersion === version)
  );
};
const secs = (ms: number) => `${(ms / 1000).toFixed(1)}s`;
const times: string[] = [];
/** Runs a scenario and records how long it took (printed at the end, for the CI time). */
async function timed(t: { comment(...a: unknown[]): void }, what: string, fn: () => Promise<void>): Promise<void> {
  const start = Date.now();
  await fn();
  times.push(`${what}: ${secs(Date.now() - start)}`);
  t.comment(`${what} took ${secs(Date.now() - start)}`);
}

const k = new EtcdKubelet(NAME, {
  size: 3,
  version: '3.5.21',
  TLS: { static: { member: { peerSecret: 'tls-peer', serverSecret: 'tls-server' }, operatorSecret: 'tls-operator' } },
});
k.setSecret('tls-peer', { 'peer-ca.crt': ca, 'peer.crt': peer.cert, 'peer.key': peer.key });
k.setSecret('tls-server', { 'server-ca.crt': ca, 'server.crt': server.cert, 'server.key': server.key });
k.setSecret('tls-operator', operatorData());
k.clientTls = operatorFiles;
t.teardown(() => k.shutdown());

/** The serial number of the certificate a member presents on a port (client 2379, peer 2380). */
function servedSerial(pod: string, port: number, client: { cert: Buffer; key: Buffer }): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(
      {
        host: `${pod}.${NAME}.${NS}.svc`,
        port,
        ca,
        cert: client.cert,
        key: client.key,
        servername: `${pod}.${NAME}.${NS}.svc`,
      },
      () => {
        resolve(socket.getPeerCertificate().serialNumber);
        socket.end();
      },
    );
    socket.on('error', reject);
  });
}
const serialOf = (cert: Buffer) => new X509Certificate(cert).serialNumber;

const members = () =>
  new HttpEtcdClient({ tls: operatorFiles, timeoutMs: 3000 }).memberList(k.livePods().map((p) => k.endpoint(p)));
const pids = () => k.livePods().map((p) => `${p}:${k.members.get(p)!.proc?.pid}`);

t.test('a serverSecret without an operatorSecret is refused with InvalidSpec before any pod is made', async (t) => {
  const bad = new EtcdKubelet('noop', {
    size: 3,
    version: '3.6.9',
    TLS: { static: { member: { peerSecret: 'tls-peer', serverSecret: 'tls-server' } } },
  });
  t.teardown(() => bad.shutdown());
  for (let i = 0; i < 2; i++) {
    const res = await bad.step();
    t.match(condition(res, 'Ready'), {
      status: 'False',
      reason: 'InvalidSpec',
      message: /serverSecret needs TLS.static.operatorSecret/,
    });
    t.same(res.children, []);
  }
  t.same(bad.livePods(), []);
});

t.test('3 members with peer and client TLS come up; the client certificate is required', async (t) => {
  await timed(t, 'bootstrap of 3 TLS members', async () => {
    await k.converge('size 3 over TLS', settled(3, '3.5.21'));
  });
  t.same(k.livePods(), ['tls-0', 'tls-1', 'tls-2']);
  const cmd = readFileSync(join(k.dir, 'tls-0.cmd'), 'utf8');
  t.match(cmd, /--listen-client-urls=https:/);
  t.match(cmd, /--peer-client-cert-auth=true/);
  t.match(cmd, /--client-cert-auth=true/);
  const res = await k.step();
  t.ok(
    status(res).memberList.every((m: any) => m.peerURL.startsWith('https://') && m.clientURL.startsWith('https://')),
    'https peer and client URLs',
  );
  await k.put('tls-key', 'over TLS');
  t.equal(await k.get('tls-key'), 'over TLS');
  const range = (url: string, tls?: Record<string, unknown>) =>
    call(new URL(`${url}/v3/kv/range`), {
      method: 'POST',
      body: JSON.stringify({ key: Buffer.from('tls-key').toString('base64') }),
      timeoutMs: 3000,
      timeoutError: () => new Error('timeout'),
      ...(tls ? { tls } : {}),
    });
  await t.rejects(range(k.endpoint('tls-0'), { ca }), 'without a client certificate: refused');
  const rogueCa = new Pki('rogue');
  const rogueCert = rogueCa.issue('rogue', 'metaops-operator');
  await t.rejects(
    range(k.endpoint('tls-0'), { ca, cert: rogueCert.cert, key: rogueCert.key }),
    "with another CA's certificate: refused",
  );
  const plain = await range(k.endpoint('tls-0').replace('https:', 'http:')).catch((e: Error) => e);
  t.ok(plain instanceof Error || plain.status === 400, 'plain http: no data');
  t.notMatch(
    JSON.stringify(plain instanceof Error ? plain.message : plain.body),
    /over TLS|b3ZlciBUTFM/,
    'plain http: no data',
  );
  const peerPort = (tls: Record<string, unknown>) =>
    call(new URL(`https://tls-0.${NAME}.${NS}.svc:2380/members`), {
      method: 'GET',
      timeoutMs: 3000,
      timeoutError: () => new Error('timeout'),
      tls,
    });
  t.equal((await peerPort({ ca, cert: peer.cert, key: peer.key })).status, 200, 'the peer port answers a member');
  await t.rejects(peerPort({ ca }), 'the peer port refuses a client without a certificate');
  t.equal(await servedSerial('tls-0', 2379, operator), serialOf(server.cert), 'members serve the server certificate');
  t.equal(await servedSerial('tls-0', 2380, peer), serialOf(peer.cert), 'and the peer certificate between members');
});

t.test('3 -> 5 -> 3 over TLS, data intact', async (t) => {
  await timed(t, '3 -> 5', async () => {
    k.setSpec({ ...k.spec, size: 5 });
    await k.converge('size 5', settled(5));
  });
  t.equal(await k.get('tls-key'), 'over TLS');
  await timed(t, '5 -> 3', async () => {
    k.setSpec({ ...k.spec, size: 3 });
    await k.converge('size 3', settled(3));
  });
  t.same(k.livePods(), ['tls-0', 'tls-1', 'tls-2']);
  t.equal(await k.get('tls-key'), 'over TLS');
});

t.test('a member whose pod is deleted is replaced over TLS', async (t) => {
  await timed(t, 'member replaced', async () => {
    await k.deletePod('tls-1');
    await k.converge(
      'dead member seen',
      (res) => condition(res, 'Recovering')?.reason === 'ReplacingDeadMember',
      20_000,
    );
    await k.converge('replaced', settled(3));
  });
  t.same(k.livePods(), ['tls-0', 'tls-2', 'tls-5']);
  t.equal(await k.get('tls-key'), 'over TLS');
});

t.test('upgrade 3.5.21 -> 3.6.9 over TLS, one member at a time', async (t) => {
  const seen: number[] = [];
  await timed(t, 'upgrade 3.5.21 -> 3.6.9', async () => {
    k.setSpec({ ...k.spec, version: '3.6.9' });
    await k.converge(
      'all on 3.6.9',
      (res) => {
        const upgraded = res.children.filter(
          (c) => c.kind === 'Pod' && (c as any).spec.containers[0].image.endsWith(':v3.6.9'),
        ).length;
        if (seen[seen.length - 1] !== upgraded) seen.push(upgraded);
        return settled(3, '3.6.9')(res);
      },
      120_000,
    );
  });
  t.same(seen, [1, 2, 3]);
  t.equal(await k.get('tls-key'), 'over TLS');
});

const rogue = new Pki('another-ca');
const stranger = rogue.issue('stranger', 'metaops-operator');
const expired = pki.issue('expired', 'metaops-operator', { days: -1 });

t.test(
  'a bad operator Secret: a condition naming the Secret and the problem, nothing changed; fixed, it recovers',
  async (t) => {
    const faults = [
      [
        'a certificate of another CA',
        operatorData(stranger),
        'Synced',
        /Secret default\/tls-operator \(TLS.static.operatorSecret\): etcd refused the client certificate etcd-client.crt/,
      ],
      [
        'an expired certificate',
        operatorData(expired),
        'Synced',
        /Secret default\/tls-operator \(TLS.static.operatorSecret\): etcd-client.crt expired on/,
      ],
      [
        'a CA that did not sign the servers',
        operatorData(operator, rogue.read('ca.crt')),
        'Synced',
        /Secret default\/tls-operator \(TLS.static.operatorSecret\): etcd's server certificate is not signed by the CA in etcd-client-ca.crt/,
      ],
      [
        'a missing key',
        { 'etcd-client-ca.crt': ca, 'etcd-client.crt': operator.cert },
        'Synced',
        /Secret default\/tls-operator \(TLS.static.operatorSecret\) has no etcd-client.key/,
      ],
    ] as const;
    for (const [what, data, type, message] of faults) {
      await timed(t, `operator Secret with ${what}: held, then recovered`, async () => {
        const before = { pods: k.livePods(), pids: pids(), ids: (await members()).members.map((m) => m.id).sort() };
        k.setSecret('tls-operator', data);
        let last: CompositeSyncResponse | undefined;
        for (let i = 0; i < 3; i++) {
          last = await k.step();
          t.match(
            condition(last, type),
            { status: 'False', reason: 'TLSFailed', message },
            `${what}: the condition says which Secret and what`,
          );
          t.match(condition(last, 'Available'), { status: 'Unknown', reason: 'TLSFailed' });
          t.same(
            last.children
              .filter((c) => c.kind === 'Pod')
              .map((p) => p.metadata.name)
              .sort(),
            before.pods,
            `${what}: every pod answered`,
          );
        }
        t.equal(status(last!).reason, 'TLSFailed');
        t.same(pids(), before.pids, `${what}: no member restarted`);
        t.same((await members()).members.map((m) => m.id).sort(), before.ids, `${what}: no membership change`);
        t.equal(await k.get('tls-key'), 'over TLS', `${what}: the data is there`);
        k.setSecret('tls-operator', operatorData());
        await k.converge(`recovered from ${what}`, settled(3));
        t.same(k.livePods(), before.pods);
      });
    }
  },
);

t.test(
  'a member Secret missing a key: a dead member is not replaced by a pod that could not start; fixed, it is',
  async (t) => {
    await timed(t, 'peer Secret without peer.key: held, then recovered', async () => {
      k.setSecret('tls-peer', { 'peer-ca.crt': ca, 'peer.crt': peer.cert });
      const ids = (await members()).members.map((m) => m.id).sort();
      await k.deletePod('tls-5');
      for (let i = 0; i < 3; i++) {
        const res = await k.step();
        t.match(condition(res, 'Synced'), {
          status: 'False',
          reason: 'TLSFailed',
          message: /Secret default\/tls-peer \(TLS.static.member.peerSecret\) has no peer.key/,
        });
        t.same(k.livePods(), ['tls-0', 'tls-2'], 'no member added');
      }
      t.same(
        (await members()).members.map((m) => m.id).sort(),
        ids,
        'the dead member is not removed either (the cluster would shrink with no replacement able to join)',
      );
      k.setSecret('tls-peer', { 'peer-ca.crt': ca, 'peer.crt': peer.cert, 'peer.key': peer.key });
      await k.converge('replaced after the fix', settled(3));
    });
    t.same(k.livePods(), ['tls-0', 'tls-2', 'tls-6']);
    t.equal(await k.get('tls-key'), 'over TLS');
  },
);

t.test(
  'rotated certificates (Secrets updated) are served on the next connection, without a restart or a lost quorum',
  async (t) => {
    await timed(t, 'server, peer and operator certificates rotated', async () => {
      const before = pids();
      const server2 = pki.issue('server2', 'etcd-server', { san: SERVER_SAN, serial: 9001 });
      const peer2 = pki.issue('peer2', 'etcd-peer', { san: PEER_SAN, serial: 9002 });
      const operator2 = pki.issue('operator2', 'metaops-operator', { serial: 9003 });
      k.setSecret('tls-server', { 'server-ca.crt': ca, 'server.crt': server2.cert, 'server.key': server2.key });
      k.setSecret('tls-peer', { 'peer-ca.crt': ca, 'peer.crt': peer2.cert, 'peer.key': peer2.key });
      k.setSecret('tls-operator', operatorData(operator2));
      for (const pod of k.livePods()) {
        t.equal(
          await servedSerial(pod, 2379, operator2),
          serialOf(server2.cert),
          `${pod} serves the new server certificate`,
        );
        t.equal(await servedSerial(pod, 2380, peer2), serialOf(peer2.cert), `${pod} serves the new peer certificate`);
      }
      for (let i = 0; i < 4; i++) {
        const res = await k.step();
        t.equal(status(res).quorum.ok, true, 'quorum kept');
        t.ok(settled(3)(res), 'settled, with the new operator certificate');
      }
      t.same(pids(), before, 'no member restarted');
      k.clientTls = { ...operatorFiles, cert: operator2.cert.toString(), key: operator2.key.toString() };
      await k.put('rotated', 'yes');
      t.equal(await k.get('rotated'), 'yes');
    });
  },
);

let moto: Moto | undefined;
t.teardown(() => moto?.stop());

/** Runs the backup container of the hook's Job as a kubelet would, its clientTLSSecret volume written to files. */
async function runJob(
  t: { equal: (...args: any[]) => unknown },
  child: KubeObject,
  secretData: Record<string, string | Buffer>,
): Promise<{ code: number; result: any }> {
  const pod = (child as any).spec.template.spec;
  const container = pod.containers[0];
  const mount = container.volumeMounts.find((m: any) => m.name === 'etcd-tls');
  const volume = pod.volumes.find((v: any) => v.name === 'etcd-tls');
  t.equal(volume.secret.secretName, 'tls-operator', 'the clientTLSSecret is mounted');
  const dir = mkdtempSync(join(tmpdir(), 'metaops-job-'));
  for (const [key, value] of Object.entries(secretData)) writeFileSync(join(dir, key), value);
  const log = join(dir, 'termination-log');
  const args = (container.args as string[]).map((a) => a.replaceAll(mount.mountPath, dir));
  const env = {
    ...process.env,
    AWS_ACCESS_KEY_ID: moto!.admin.accessKeyId,
    AWS_SECRET_ACCESS_KEY: moto!.admin.secretAccessKey,
    AWS_REGION: moto!.region,
    METAOPS_TERMINATION_LOG: log,
  };
  let code = 0;
  try {
    await promisify(execFile)(process.execPath, ['--import', 'tsx', join(root, 'main', 'cli.ts'), ...args], {
      env,
      cwd: root,
    });
  } catch (err) {
    code = (err as { code?: number }).code ?? 1;
  }
  return { code, result: JSON.parse(readFileSync(log, 'utf8')) };
}

t.test(
  'a backup over TLS (clientTLSSecret, through the client Service) to S3, restored into a TLS cluster',
  async (t) => {
    await timed(t, 'moto started', async () => {
      moto = await startMoto();
      const admin = new S3Client({
        endpoint: moto.endpoint,
        region: moto.region,
        credentials: moto.admin,
        forcePathStyle: true,
      });
      await admin.send(new CreateBucketCommand({ Bucket: 'tls-backups' }));
    });
    const keys = Array.from({ length: 10 }, (_, i) => `backed-up-${i}`);
    for (const key of keys) await k.put(key, `v-${key}`);
    const rotated = readFileSync(join(pki.dir, 'operator2.crt'));
    const data = operatorData({ cert: rotated, key: pki.read('operator2.key') });
    const spec = {
      clusterName: NAME,
      clientTLSSecret: 'tls-operator',
      s3: { path: `tls-backups/${NS}/tls/snap.db`, endpoint: moto!.endpoint, forcePathStyle: true },
    };
    // The server lets this namespace's backups use the pod's own credentials (the test gives them as environment).
    const allowed = { METAOPS_BACKUP_AMBIENT_CREDENTIALS: NS, METAOPS_BACKUP_S3_ENDPOINTS: moto!.endpoint };
    const rig = new BackupRig(moto!.endpoint, moto!.region, allowed);
    const job = rig.hook(spec, { namespace: NS, clusters: [NAME] }).children[0]!;
    t.match((job as any).spec.template.spec.containers[0].args, [
      'etcd-backup',
      '--endpoints',
      // Fully qualified (a relative name is looked up under other namespaces first); the server certificate names
      // the Service as etcd-operator's guide does (SERVER_SAN: `<c>-client.<ns>.svc` only), and is taken for it.
      `https://${NAME}-client.${NS}.svc.cluster.local:2379`,
    ]);
    k.clientService(); // the client Service's names resolve to a member
    let backup: { code: number; result: any } | undefined;
    await timed(t, 'backup over TLS', async () => {
      backup = await runJob(t, job, data);
    });
    t.equal(backup!.code, 0, JSON.stringify(backup!.result));
    t.match(backup!.result, { succeeded: true, key: `${NS}/tls/snap.db`, etcdVersion: '3.6.9' });
    const head = await new S3Client({
      endpoint: moto!.endpoint,
      region: moto!.region,
      credentials: moto!.admin,
      forcePathStyle: true,
    }).send(new HeadObjectCommand({ Bucket: 'tls-backups', Key: `${NS}/tls/snap.db` }));
    t.equal(head.ContentLength, backup!.result.size);
    // The same Job with a Secret of another CA fails, saying why; without a key, naming the file.
    const refused = await runJob(t, job, operatorData(stranger));
    t.match(refused.result, { succeeded: false, reason: /no etcd endpoint could be snapshotted/ });
    const missing = await runJob(t, job, { 'etcd-client-ca.crt': ca, 'etcd-client.crt': rotated });
    t.match(missing.result, { succeeded: false, reason: /has no etcd-client.key/ });

    for (const key of keys) await k.put(key, 'junk');
    k.settings = { backup: tenancyFromEnv(allowed) };
    k.nodeEnv = {
      AWS_ACCESS_KEY_ID: moto!.admin.accessKeyId,
      AWS_SECRET_ACCESS_KEY: moto!.admin.secretAccessKey,
      AWS_REGION: moto!.region,
    };
    k.related = [
      {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdRestore',
        metadata: {
          name: 'tls-restore',
          namespace: NS,
          uid: 'uid-tls-restore',
          creationTimestamp: '2026-01-01T00:00:00Z',
        },
        spec: {
          etcdCluster: { name: NAME },
          backupStorageType: 'S3',
          s3: { path: `tls-backups/${NS}/tls/snap.db`, endpoint: moto!.endpoint },
        },
      },
    ];
    await timed(t, 'restore into a TLS cluster', async () => {
      await k.converge('restored', (res) => status(res).restore?.phase === 'Restored' && settled(3)(res), 120_000);
    });
    t.notOk(k.livePods().includes('tls-0'), 'new members');
    for (const key of keys) t.equal(await k.get(key), `v-${key}`, `${key} restored`);
    t.comment(`times: ${times.join('; ')}`);
  },
);
