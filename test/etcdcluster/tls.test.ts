// TLS.static without etcd: the spec check, the Secrets read and checked before anything is dialled, what a
// failed handshake means, and the backup CLI's clientTLSSecret files. The same on real etcd:
// test/etcd-tls-real.test.ts.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import t from 'tap';
import { EtcdError, HttpEtcdClient, type EtcdClient, type TlsFiles } from '../../hooks/etcdcommon/etcd.js';
import { etcdcluster } from '../../hooks/etcdcluster/index.js';
import { checkSecret } from '../../hooks/etcdcluster/tls.js';
import { tlsFailure } from '../../hooks/etcdcommon/etcd.js';
import { hookContext } from '../fixtures/app.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { Pki } from '../fixtures/pki.js';
import { objectMap, root } from '../fixtures/requests.js';
import { etcdClusterId, identified } from '../fixtures/etcd.js';

const pki = new Pki();
const op = pki.issue('op', 'etcd-operator');
const expired = pki.issue('old', 'etcd-operator', { days: -1 });
const other = new Pki('another-ca');
const stranger = other.issue('stranger', 'etcd-operator');
const ca = pki.read('ca.crt');
const NOW = new Date();

const secret = (name: string, data: Record<string, string | Buffer>): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'ns' },
  data: Object.fromEntries(Object.entries(data).map(([k, v]) => [k, Buffer.from(v).toString('base64')])),
});
const opData = (files: { cert: Buffer; key: Buffer }, caFile: Buffer = ca) => ({
  'etcd-client-ca.crt': caFile,
  'etcd-client.crt': files.cert,
  'etcd-client.key': files.key,
});
const related = (...secrets: KubeObject[]) => objectMap(secrets, 'v1', ['Secret.v1']);

t.test('each Secret is checked: found, every key, PEM, the key of the certificate, valid now', async (t) => {
  const check = (...s: KubeObject[]) => checkSecret(related(...s), 'ns', 'operatorSecret', 'op', NOW);
  t.match(check(), { problem: 'Secret ns/op (TLS.static.operatorSecret) was not found' });
  t.match(check(secret('op', { 'etcd-client.crt': op.cert })), {
    problem: 'Secret ns/op (TLS.static.operatorSecret) has no etcd-client-ca.crt, etcd-client.key',
  });
  t.match(check(secret('op', { ...opData(op), 'etcd-client.crt': 'not a certificate' })), {
    problem: /etcd-client.crt is not a PEM certificate$/,
  });
  t.match(check(secret('op', { ...opData(op), 'etcd-client.key': 'not a key' })), {
    problem: /etcd-client.key is not a PEM private key$/,
  });
  t.match(check(secret('op', { ...opData(op), 'etcd-client.key': stranger.key })), {
    problem: /etcd-client.key is not the key of etcd-client.crt$/,
  });
  t.match(check(secret('op', opData(expired))), {
    problem: /^Secret ns\/op \(TLS.static.operatorSecret\): etcd-client.crt expired on 20\d\d-/,
  });
  const ok = check(secret('op', opData(op)));
  t.notOk(ok.problem);
  t.same(ok.files, { ca: ca.toString(), cert: op.cert.toString(), key: op.key.toString() });
  t.match(checkSecret(related(secret('peer', {})), 'ns', 'peerSecret', 'peer', NOW), {
    problem: 'Secret ns/peer (TLS.static.member.peerSecret) has no peer-ca.crt, peer.crt, peer.key',
  });
  t.match(
    checkSecret(related(secret('op', opData(op))), 'other', 'operatorSecret', 'op', NOW),
    { problem: /ns\b|other\/op .* was not found/ },
    "another namespace's Secret is not it",
  );
});

const TLS_SPEC = {
  size: 3,
  version: '3.6.9',
  TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'op' } },
};
const parent = (spec: Record<string, unknown>, status?: Record<string, unknown>) => ({
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'e', namespace: 'ns', uid: 'u-e', generation: 2 },
  spec,
  ...(status ? { status } : {}),
});
const memberSecrets = () => {
  const peer = pki.issue('peer', 'peer', { san: 'DNS:*.e.ns.svc' });
  const server = pki.issue('server', 'server', { san: 'DNS:*.e.ns.svc' });
  return [
    secret('peer', { 'peer-ca.crt': ca, 'peer.crt': peer.cert, 'peer.key': peer.key }),
    secret('server', { 'server-ca.crt': ca, 'server.crt': server.cert, 'server.key': server.key }),
  ];
};

/** A context whose etcd client records every call and answers like a running 3-member cluster. */
function recording(calls: string[], identities: Array<TlsFiles | undefined>, namespaces: string[] = []): any {
  const members = ['e-0', 'e-1', 'e-2'].map((n, i) => ({
    id: String(i + 1),
    name: n,
    peerURLs: [`https://${n}.e.ns.svc:2380`],
    clientURLs: [],
    isLearner: false,
  }));
  const client: EtcdClient = identified(
    {
      memberList: async () => (calls.push('memberList'), { members, clusterVersion: '3.6.0' }),
      memberAdd: async () => (calls.push('memberAdd'), members[0]!),
      memberRemove: async () => void calls.push('memberRemove'),
      memberPromote: async () => void calls.push('memberPromote'),
      health: async () => (calls.push('health'), { healthy: true, version: '3.6.9', leader: '1' }),
    },
    etcdClusterId(3, 'e', 'ns', true, 'u-e'),
    () => members,
  );
  return hookContext({
    now: NOW,
    settings: { image: 'metaops' },
    clients: { etcd: (tls?: TlsFiles, ns?: string) => (identities.push(tls), namespaces.push(ns ?? '?'), client) },
  });
}
const pod = (name: string) => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name, namespace: 'ns', uid: `uid-${name}` },
  spec: { containers: [{ name: 'etcd', image: 'quay.io/coreos/etcd:v3.6.9' }] },
  status: { phase: 'Running' },
});
const running = {
  phase: 'Running',
  lastMemberIndex: 2,
  memberList: ['e-0', 'e-1', 'e-2'].map((n, i) => ({ name: n, id: String(i + 1), healthy: true })),
};
const request = (
  spec: Record<string, unknown>,
  secrets: KubeObject[],
  status?: Record<string, unknown>,
  pods: string[] = [],
) => ({
  controller: {},
  parent: parent(spec, status),
  children: objectMap(pods.map(pod), 'v1', ['Pod.v1', 'Service.v1', 'PersistentVolumeClaim.v1']),
  related: related(...secrets),
});
const cond = (res: any, type: string) => res.status.conditions.find((c: any) => c.type === type);

t.test('a serverSecret without an operatorSecret is refused before any pod is made', async (t) => {
  const calls: string[] = [];
  const spec = {
    size: 3,
    version: '3.6.9',
    TLS: { static: { member: { peerSecret: 'peer', serverSecret: 'server' } } },
  };
  const res: any = await etcdcluster.sync(request(spec, memberSecrets()) as any, recording(calls, []));
  t.match(cond(res, 'Ready'), {
    status: 'False',
    reason: 'InvalidSpec',
    message: /serverSecret needs TLS.static.operatorSecret/,
  });
  t.same(res.children, [], 'no pod, no Service');
  t.same(calls, [], 'nothing dialled');
  // Peer TLS alone (clients in plain http) needs no operator certificate, as in etcd-operator.
  const peerOnly = { size: 1, version: '3.6.9', TLS: { static: { member: { peerSecret: 'peer' } } } };
  const ok: any = await etcdcluster.sync(request(peerOnly, memberSecrets()) as any, recording([], []));
  t.equal(ok.children.filter((c: any) => c.kind === 'Pod').length, 1);
});

t.test(
  'an unusable operator Secret: nothing dialled, pods kept, a condition naming the Secret; fixed, the hook carries on',
  async (t) => {
    for (const [what, op2, problem] of [
      [
        'a missing key',
        secret('op', { 'etcd-client-ca.crt': ca, 'etcd-client.crt': op.cert }),
        /Secret ns\/op \(TLS.static.operatorSecret\) has no etcd-client.key/,
      ],
      [
        'an expired certificate',
        secret('op', opData(expired)),
        /Secret ns\/op \(TLS.static.operatorSecret\): etcd-client.crt expired on/,
      ],
      ['no Secret', undefined, /Secret ns\/op \(TLS.static.operatorSecret\) was not found/],
    ] as const) {
      const calls: string[] = [];
      const spec = { ...TLS_SPEC, size: 5 }; // a change pending: it must wait
      const secrets = [...memberSecrets(), ...(op2 ? [op2] : [])];
      const first: any = await etcdcluster.sync(
        request(spec, secrets, running, ['e-0', 'e-1', 'e-2']) as any,
        recording(calls, []),
      );
      t.same(calls, [], `${what}: nothing dialled`);
      t.same(
        first.children.filter((c: any) => c.kind === 'Pod').map((p: any) => p.metadata.name),
        ['e-0', 'e-1', 'e-2'],
        `${what}: every pod kept, none added`,
      );
      t.match(cond(first, 'Available'), { status: 'Unknown', reason: 'TLSFailed', message: problem });
      t.match(cond(first, 'Synced'), { status: 'False', reason: 'TLSFailed', message: problem });
      t.notOk(cond(first, 'Recovering'), `${what}: no quorum loss reported`);
      t.notOk(first.status.quorum, `${what}: the quorum is not known`);
      t.equal(first.status.reason, 'TLSFailed');
      t.same(
        first.status.memberList.map((m: any) => [m.name, m.id]),
        running.memberList.map((m) => [m.name, m.id]),
        `${what}: the members are remembered`,
      );
      // Quiet: the same answer again.
      const again: any = await etcdcluster.sync(
        { ...request(spec, secrets, first.status, ['e-0', 'e-1', 'e-2']) } as any,
        recording([], []),
      );
      t.same(again.status, first.status, `${what}: the same status on the next sync`);

      const identities: Array<TlsFiles | undefined> = [];
      const namespaces: string[] = [];
      const fixed: any = await etcdcluster.sync(
        request(spec, [...memberSecrets(), secret('op', opData(op))], first.status, ['e-0', 'e-1', 'e-2']) as any,
        recording(calls, identities, namespaces),
      );
      t.ok(
        calls.includes('memberList') && calls.includes('memberAdd'),
        `${what} fixed: etcd is read and the pending growth goes ahead`,
      );
      t.equal(identities[0]?.cert, op.cert.toString(), 'with the operator certificate');
      t.equal(namespaces[0], 'ns', "the client kept within the cluster's namespace's share");
      t.notOk(cond(fixed, 'Synced'));
      t.equal(cond(fixed, 'Available').status, 'True');
    }
  },
);

t.test(
  'a member Secret missing a key holds every change (a new pod could not start); the cluster is still read',
  async (t) => {
    const calls: string[] = [];
    const [peer, server] = memberSecrets();
    delete (peer!['data'] as Record<string, string>)['peer.key'];
    const res: any = await etcdcluster.sync(
      request({ ...TLS_SPEC, size: 5 }, [peer!, server!, secret('op', opData(op))], running, [
        'e-0',
        'e-1',
        'e-2',
      ]) as any,
      recording(calls, []),
    );
    t.notOk(calls.includes('memberAdd'), 'no member added');
    t.ok(calls.includes('memberList'), 'etcd is still read');
    t.equal(res.children.filter((c: any) => c.kind === 'Pod').length, 3);
    t.match(cond(res, 'Synced'), {
      status: 'False',
      reason: 'TLSFailed',
      message: /Secret ns\/peer \(TLS.static.member.peerSecret\) has no peer.key/,
    });
    t.match(cond(res, 'Available'), { status: 'True' }, 'etcd was seen: its availability is known');
  },
);

t.test("customize asks for every Secret of TLS.static, in the cluster's namespace", async (t) => {
  const rules: any = etcdcluster.customize!({ controller: {}, parent: parent(TLS_SPEC) } as any, {} as any);
  t.same(
    rules.relatedResources.find((r: any) => r.resource === 'secrets'),
    { apiVersion: 'v1', resource: 'secrets', namespace: 'ns', names: ['op', 'peer', 'server'] },
  );
});

/** An https server that asks for a client certificate signed by `clientCa`, with a certificate of `serverPki`. */
async function tlsServer(t: Tap, serverPki: Pki, clientCa: Buffer): Promise<string> {
  const cert = serverPki.issue('srv', 'server', { san: 'DNS:localhost' });
  const server = createServer(
    { cert: cert.cert, key: cert.key, ca: clientCa, requestCert: true, rejectUnauthorized: true },
    (_req, res) => res.end('{"etcdserver":"3.6.9"}'),
  );
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()));
  t.teardown(() => server.close());
  return `https://localhost:${(server.address() as AddressInfo).port}`;
}
type Tap = { teardown(fn: () => unknown): void };

// (A Node server drops a refused client certificate without an alert, a plain reset: the client's side of a
// refusal is shown against real etcd, which sends one, in test/etcd-tls-real.test.ts.)
t.test("a failed handshake says what it means: a server certificate the operator's CA did not sign", async (t) => {
  const url = await tlsServer(t, pki, ca);
  const tls = (files: { cert: Buffer; key: Buffer }, caFile: Buffer) => ({
    ca: caFile.toString(),
    cert: files.cert.toString(),
    key: files.key.toString(),
  });
  const list = (files: TlsFiles) => new HttpEtcdClient({ tls: files, timeoutMs: 3000 }).memberList([url, url]);
  await t.rejects(list(tls(op, other.read('ca.crt'))), {
    code: 'TLS',
    message: "etcd's server certificate is not signed by the CA in etcd-client-ca.crt",
  });
  const health = await new HttpEtcdClient({ tls: tls(op, other.read('ca.crt')), timeoutMs: 3000 }).health(url);
  t.match(health, { healthy: false, tls: /not signed by the CA in etcd-client-ca.crt/ });
  t.equal(
    tlsFailure(Object.assign(new Error('x'), { code: 'ECONNREFUSED' })),
    undefined,
    'a refused connection is not a TLS problem',
  );
  t.equal(
    tlsFailure(Object.assign(new Error('x'), { code: 'ERR_SSL_SSLV3_ALERT_BAD_CERTIFICATE' })),
    'etcd refused the client certificate etcd-client.crt (not signed by a CA etcd trusts, or expired)',
  );
  // One endpoint refused by TLS, another down: not all TLS, so reported as unreachable.
  const mixed = await new HttpEtcdClient({ tls: tls(op, other.read('ca.crt')), timeoutMs: 3000 })
    .memberList([url, 'https://127.0.0.1:1'])
    .catch((e: unknown) => e);
  t.ok(
    mixed instanceof EtcdError && mixed.code === 'Unreachable',
    'a mix of TLS failures and down members is not called a TLS problem',
  );
});

t.test('the backup CLI: a clientTLSSecret without a key is a failed backup naming the file, not a crash', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'metaops-tls-'));
  writeFileSync(join(dir, 'etcd-client-ca.crt'), ca);
  writeFileSync(join(dir, 'etcd-client.crt'), op.cert);
  const log = join(dir, 'termination-log');
  const args = [
    '--import',
    'tsx',
    join(root, 'main', 'cli.ts'),
    'etcd-backup',
    '--endpoints',
    'https://localhost:1',
    '--s3-path',
    'b/k',
    '--tls-dir',
    dir,
  ];
  const code = await promisify(execFile)(process.execPath, args, {
    cwd: root,
    env: { ...process.env, METAOPS_TERMINATION_LOG: log },
  }).then(
    () => 0,
    (e: { code?: number }) => e.code ?? -1,
  );
  t.equal(code, 1, 'a failed backup, not a usage error or a crash');
  t.same(JSON.parse(readFileSync(log, 'utf8')), {
    succeeded: false,
    reason: `the clientTLSSecret mounted at ${dir} has no etcd-client.key`,
  });
});

t.test('a CA bundle is judged whole: one valid CA is enough, every block must be a certificate', async (t) => {
  const fresh = new Pki('new-ca', 5);
  const opNew = fresh.issue('op-new', 'etcd-operator', { days: 5 });
  const later = new Date(Date.now() + 2 * 86400_000); // the old CA (1 day) has expired, the new one has not
  const check = (caFile: Buffer) =>
    checkSecret(related(secret('op', opData(opNew, caFile))), 'ns', 'operatorSecret', 'op', later);
  t.notOk(
    check(Buffer.concat([ca, fresh.read('ca.crt')])).problem,
    'the expired old CA first, the new one second: usable',
  );
  t.notOk(check(Buffer.concat([fresh.read('ca.crt'), ca])).problem, 'either order');
  t.match(check(ca), { problem: /etcd-client-ca.crt expired on/ }, 'only the expired one: refused');
  t.match(
    check(
      Buffer.concat([
        fresh.read('ca.crt'),
        Buffer.from('-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n'),
      ]),
    ),
    { problem: /etcd-client-ca.crt is not a PEM certificate/ },
    'a junk block: refused',
  );
});
