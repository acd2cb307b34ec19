// Which pods and claims an EtcdCluster sync considers (observe.ts memberWindow) and the PEM scan of its TLS Secrets
// (tls.ts pemBlocks): both bounded whatever a tenant puts in its namespace.
import { execFileSync } from 'node:child_process';
import t from 'tap';
import { MAX_MEMBER_NAMES, memberWindow } from '../../hooks/etcdcluster/observe.js';
import { checkSecret, MAX_TLS_FILE_BYTES, pemBlocks } from '../../hooks/etcdcluster/tls.js';
import { Pki } from '../fixtures/pki.js';

const obj = (kind: string, name: string) => ({ apiVersion: 'v1', kind, metadata: { name, namespace: 'ns' } });
const group = (kind: string, names: string[]) => Object.fromEntries(names.map((n) => [n, obj(kind, n)]));
const request = (pods: string[], claims?: string[]) =>
  ({
    controller: {},
    parent: { apiVersion: 'x/v1', kind: 'EtcdCluster', metadata: { name: 'e', namespace: 'ns' } },
    children: {
      'Pod.v1': group('Pod', pods),
      ...(claims ? { 'PersistentVolumeClaim.v1': group('PersistentVolumeClaim', claims) } : {}),
      'Service.v1': group('Service', ['e', 'e-client']),
    },
  }) as any;
const names = (r: any, key: string) => Object.keys(r.children[key] ?? {}).sort();
const range = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => `e-${from + i}`);

t.test(
  'the members the status knows and the newest ordinals given out are kept, at most MAX_MEMBER_NAMES',
  async (t) => {
    const memberList = [{ name: 'e-3' }, { name: 'e-40' }];
    const { request: r, ignored } = memberWindow(request([...range(0, 60), 'other', 'e-restore-check']), 'e', {
      memberList,
      lastMemberIndex: 50,
    });
    const kept = names(r, 'Pod.v1');
    t.ok(kept.includes('e-3') && kept.includes('e-40'), 'the known members');
    t.ok(kept.includes('e-50') && kept.includes('e-49'), 'the newest ordinals given out');
    t.notOk(kept.includes('e-51'), 'an ordinal never given out comes after those');
    t.notOk(kept.includes('other'), 'a name that is no member name is left out');
    t.equal(kept.filter((n) => n !== 'e-restore-check').length, MAX_MEMBER_NAMES);
    t.equal(ignored.pods, 62 - kept.length);
    t.same(names(r, 'Service.v1'), ['e', 'e-client'], 'other kinds untouched');
  },
);

t.test('a claim without a pod counts only at an ordinal the cluster gave out', async (t) => {
  const { request: r, ignored } = memberWindow(request([], range(0, 1000)), 'e', { lastMemberIndex: 2 });
  t.same(names(r, 'PersistentVolumeClaim.v1'), ['e-0', 'e-1', 'e-2']);
  t.equal(ignored.claims, 997);
  // Its pod's claim is kept with the pod, whatever its ordinal.
  const withPod = memberWindow(request(['e-7'], ['e-7', 'e-8']), 'e', { lastMemberIndex: 2 });
  t.same(names(withPod.request, 'PersistentVolumeClaim.v1'), ['e-7']);
  // Status lost: the lowest ordinals, bounded.
  const lost = memberWindow(request([], range(0, 1000)), 'e', {});
  t.equal(names(lost.request, 'PersistentVolumeClaim.v1').length, MAX_MEMBER_NAMES);
  t.ok(names(lost.request, 'PersistentVolumeClaim.v1').includes('e-0'));
});

t.test('a request without claims says nothing of claims', async (t) => {
  const { request: r } = memberWindow(request(['e-0']), 'e', {});
  t.notOk('PersistentVolumeClaim.v1' in (r.children ?? {}));
});

t.test('the PEM scan is linear and takes only whole blocks', async (t) => {
  const cert = (n: string) => `-----BEGIN CERTIFICATE-----\n${n}\n-----END CERTIFICATE-----`;
  t.same(pemBlocks(`junk\n${cert('a')}\n\n${cert('b')}\n`), [cert('a'), cert('b')]);
  t.same(pemBlocks(`${cert('a')}${cert('b')}${cert('c')}`, 2), [cert('a'), cert('b')], 'at most the limit');
  t.same(pemBlocks('no pem here'), []);
  // A BEGIN without its END (or with another label's) is returned as a fragment no parser accepts.
  t.same(pemBlocks('-----BEGIN A-----x-----END B-----'), ['-----BEGIN A-----']);
  t.same(pemBlocks(`-----BEGIN ${'x'.repeat(100)}-----`), ['-----BEGIN ']);
  const hostile = '-----BEGIN A-----'.repeat(200_000);
  const began = process.hrtime.bigint();
  t.equal(pemBlocks(hostile).length, 1);
  t.comment(`3.4 MB of BEGINs without END scanned in ${Number(process.hrtime.bigint() - began) / 1e6} ms`);
});

t.test('a TLS Secret value over the bound is refused before it is decoded, naming the Secret and key', async (t) => {
  const big = Buffer.alloc(MAX_TLS_FILE_BYTES + 1, 'a').toString('base64');
  const ok = Buffer.from('x').toString('base64');
  const related = {
    'Secret.v1': {
      peer: {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: 'peer', namespace: 'ns' },
        data: { 'peer-ca.crt': ok, 'peer.crt': big, 'peer.key': ok },
      },
    },
  } as any;
  const check = checkSecret(related, 'ns', 'peerSecret', 'peer', new Date());
  t.match(
    check.problem,
    /^Secret ns\/peer \(TLS\.static\.member\.peerSecret\): peer\.crt is \d+ KiB, more than the 160 KiB/,
  );
  related['Secret.v1'].peer.data['peer.crt'] = Buffer.alloc(MAX_TLS_FILE_BYTES - 2, 'a').toString('base64');
  t.match(checkSecret(related, 'ns', 'peerSecret', 'peer', new Date()).problem, 'is not a PEM certificate');
});

t.test("the operator's CAs (the hook server's trust anchors) are held to the keys a chain may have", async (t) => {
  const pki = new Pki();
  const client = pki.issue('client', 'op');
  execFileSync(
    'openssl',
    [
      'req',
      '-x509',
      '-newkey',
      'rsa:1024',
      '-nodes',
      '-keyout',
      'weak.key',
      '-out',
      'weak.crt',
      '-subj',
      '/CN=weak',
      '-days',
      '1',
    ],
    { cwd: pki.dir, stdio: 'pipe' },
  );
  const b64 = (b: Buffer) => b.toString('base64');
  const secret = (ca: Buffer) =>
    ({
      'Secret.v1': {
        op: {
          apiVersion: 'v1',
          kind: 'Secret',
          metadata: { name: 'op', namespace: 'ns' },
          data: {
            'etcd-client-ca.crt': b64(ca),
            'etcd-client.crt': b64(client.cert),
            'etcd-client.key': b64(client.key),
          },
        },
      },
    }) as any;
  const ok = checkSecret(secret(pki.read('ca.crt')), 'ns', 'operatorSecret', 'op', new Date());
  t.equal(ok.problem, undefined);
  const bundle = Buffer.concat([pki.read('ca.crt'), pki.read('weak.crt')]);
  t.match(
    checkSecret(secret(bundle), 'ns', 'operatorSecret', 'op', new Date()).problem,
    'Secret ns/op (TLS.static.operatorSecret): etcd-client-ca.crt holds a certificate with an RSA key of 1024 bits',
  );
});
