// The pods the EtcdCluster hook makes dial AWS by name: a restored member's fetch step and a restore's snapshot check
// fetch from S3 (`s3.<region>.amazonaws.com`, `<bucket>.s3.<region>.amazonaws.com`, `s3.amazonaws.com`), with web
// identity through STS (`sts.amazonaws.com`, `sts.<region>.amazonaws.com`), or a custom endpoint. With Kubernetes'
// default `ndots:5` each such name is first tried under the pod's search domains: `sts.amazonaws.com.svc.cluster.local`
// is pod `sts` of headless Service `amazonaws` in namespace `com`, whose tenant then answers for STS or S3 (the
// snapshot fetched, the credentials' requests seen). Every new pod looks a name with a dot up as it is first
// (lib/names.ts podDnsConfig). Running members are kept as they were made: nothing rolls for it. And the relative
// names a cluster made before still uses between its members still resolve.
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t, { type Test } from 'tap';
import { decide } from '../../hooks/etcdcluster/plan.js';
import { memberHost, memberPod, clusterOf } from '../../hooks/etcdcluster/members.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { restoredMembersWait, restoreObject, running } from '../fixtures/etcd-loop.js';
import { etcdParent, etcdSpec, quietEtcd, scaledFromMembersMadeBefore } from '../fixtures/etcd.js';
import { etcdSync } from '../fixtures/hooks.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { lookups, resolvConfOf } from '../fixtures/resolver.js';

/** The names an AWS client or a custom endpoint makes the pod look up. */
const EXTERNAL = [
  's3.us-east-1.amazonaws.com',
  's3.amazonaws.com',
  'tenant-bucket.s3.eu-north-1.amazonaws.com',
  'sts.amazonaws.com',
  'sts.us-east-1.amazonaws.com',
  'objects.example.com',
];

function asksFirstAsItIs(t: Test, what: string, pod: KubeObject, namespace: string): void {
  const conf = resolvConfOf(pod['spec'] as any, namespace);
  for (const name of EXTERNAL)
    for (const libc of ['glibc', 'go', 'musl'] as const)
      t.equal(
        lookups(name, conf, libc)[0],
        name,
        `${what}: ${name} is looked up as it is first (${libc}; ndots ${conf.ndots}), never first as ${name}.${conf.search[1]}`,
      );
}

t.test('every pod an EtcdCluster makes looks the names of AWS and of endpoints up as they are first', async (t) => {
  // A bootstrap, through the hook.
  const res = await etcdSync(
    {
      controller: {},
      parent: {
        apiVersion: 'etcd.database.coreos.com/v1beta2',
        kind: 'EtcdCluster',
        metadata: { name: 'web', namespace: 'team-a', uid: 'u-a', generation: 1 },
        spec: { size: 3, version: '3.5.21' },
      },
      children: { 'Pod.v1': {}, 'Service.v1': {}, 'PersistentVolumeClaim.v1': {} },
      related: {},
      finalizing: false,
    } as any,
    { etcd: quietEtcd as never, now: FIXED_NOW },
  );
  const bootstrap = res.children.filter((c) => c.kind === 'Pod');
  t.equal(bootstrap.length, 3);
  for (const p of bootstrap) asksFirstAsItIs(t, `member ${p.metadata.name}`, p, 'team-a');

  // A restore, through the hook: its check pod, then its restored members.
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  t.ok(loop.checkPod(), 'the check pod');
  asksFirstAsItIs(t, 'the restore check', loop.checkPod()!, 'ns');
  loop.check = { succeeded: true };
  await loop.step(); // Replacing
  loop.etcd.members = [];
  loop.etcd.up.clear();
  await loop.step(); // Restoring
  restoredMembersWait(loop);
  const restored = loop.children.filter((c) => c.kind === 'Pod' && c.metadata.name !== 'e-restore-check');
  t.same(
    restored.map((p) => p.metadata.name),
    ['e-3', 'e-4', 'e-5'],
  );
  for (const p of restored) {
    t.ok(
      (p['spec'] as any).initContainers.some((c: any) => c.name === 'fetch-snapshot'),
      'a restored member',
    );
    asksFirstAsItIs(t, `restored member ${p.metadata.name}`, p, 'ns');
  }
});

t.test(
  'running members made before are answered as they were made; only new pods look names up as they are',
  async (t) => {
    // Three members made by an earlier metaops (no DNS settings), scaled to four.
    const { made, answered, added } = scaledFromMembersMadeBefore((p) => delete p.spec.dnsConfig);
    for (const i of [0, 1, 2]) {
      const { status: _s, ...expected } = made(i) as any;
      t.same(answered.get(`e-${i}`)?.['spec'], expected.spec, `e-${i}: its pod spec as it was made (no roll)`);
    }
    t.ok(added, 'a member is added');
    t.same((added!['spec'] as any).dnsConfig, { options: [{ name: 'ndots', value: '1' }] }, 'the new one: ndots 1');

    // The same with etcd silent (a status lost, an outage): pods kept as they are.
    const silent = decide(etcdParent({ size: 3 }, { phase: 'Running' }), etcdSpec({ size: 3 }), {
      pods: [0, 1, 2].map(made),
      terminating: [],
      health: {},
      now: FIXED_NOW,
    });
    for (const p of silent.pods) t.notOk((p['spec'] as any).dnsConfig, `${p.metadata.name}: kept without DNS settings`);
  },
);

t.test('a restore check pod made by an earlier metaops is answered as it was made, not changed in place', async (t) => {
  const loop = await running({ size: 3 });
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  loop.check = 'running';
  await loop.step();
  const check = loop.checkPod() as any;
  t.same(check.spec.dnsConfig, { options: [{ name: 'ndots', value: '1' }] }, 'a new check pod: ndots 1');
  // The check pod as an earlier metaops made it (a pod's spec cannot change: an update would be refused).
  delete check.spec.dnsConfig;
  const before = structuredClone(check);
  await loop.step();
  t.same(loop.checkPod(), before, 'the running check pod answered as it is');
  t.match(loop.s().restore, { phase: 'Checking' });
});

/**
 * Runs a member's check-dns step with `nslookup` resolving as a pod's libc would (`libc`, the pod's resolv.conf):
 * whether the step finds the member's record `record` within its timeout.
 */
function checkDnsFinds(pod: KubeObject, record: string, libc: 'glibc' | 'musl'): boolean {
  const dir = mkdtempSync(join(tmpdir(), 'k-etcd-check-dns-'));
  const conf = resolvConfOf(pod['spec'] as any, 'ns');
  writeFileSync(join(dir, 'resolv.conf'), `search ${conf.search.join(' ')}\noptions ndots:${conf.ndots}\n`);
  const step = (pod['spec'] as any).initContainers.find((c: any) => c.name === 'check-dns');
  const script: string = step.command[2].replaceAll('/etc/resolv.conf', join(dir, 'resolv.conf'));
  // Every name the script may ask for: those whose lookup reaches the record succeed.
  const asked = [...script.matchAll(/nslookup (\S+)/g)].map((m) => m[1]!);
  const candidates = asked.flatMap((a) => (a.endsWith('.$d') ? conf.search.map((d) => `${a.slice(0, -3)}.${d}`) : [a]));
  const found = candidates.filter((n) => lookups(n, conf, libc).includes(record));
  const fake = `#!/bin/sh\ncase "$1" in\n${found.map((n) => `  ${n}) exit 0 ;;\n`).join('')}esac\nexit 1\n`;
  writeFileSync(join(dir, 'nslookup'), fake);
  chmodSync(join(dir, 'nslookup'), 0o755);
  try {
    execFileSync('/bin/sh', ['-c', script.replace('sleep 1', 'sleep 0.1')], {
      env: { PATH: `${dir}:/usr/bin:/bin` },
      stdio: 'ignore',
      timeout: 10_000,
    });
    return true;
  } catch {
    return false;
  }
}

t.test(
  "a relative member name (a cluster that keeps its members' names) still resolves in a new member's pod",
  async (t) => {
    // A cluster made before names were qualified: no cluster domain in its spec (identity.ts namedSpec keeps it so).
    const parent = etcdParent({});
    const spec = etcdSpec({ pod: { DNSTimeoutInSecond: 5 } });
    const c = clusterOf(parent, spec);
    const made = memberPod({ parent, spec, name: 'e-3', initialCluster: '', state: 'existing' });
    const host = memberHost(c, 'e-3');
    t.equal(host, 'e-3.e.ns.svc', 'a relative name');
    const record = `${host}.cluster.local`;
    const conf = resolvConfOf(made['spec'] as any, 'ns');
    t.ok(lookups(host, conf, 'go').includes(record), "etcd (Go's resolver) finds its peers");
    t.ok(lookups(host, conf, 'glibc').includes(record), 'a glibc program finds them');
    t.ok(checkDnsFinds(made, record, 'glibc'), 'check-dns finds the record with the default busybox (glibc)');
    t.ok(
      checkDnsFinds(made, record, 'musl'),
      'and with a musl busybox (an alpine busyboxImage), which never searches it',
    );
    // A qualified name is the record itself.
    const qualified = etcdSpec({ pod: { clusterDomain: 'cluster.local', DNSTimeoutInSecond: 5 } });
    const q = memberPod({ parent, spec: qualified, name: 'e-3', initialCluster: '', state: 'existing' });
    for (const libc of ['glibc', 'musl'] as const) t.ok(checkDnsFinds(q, record, libc), `qualified, ${libc}`);
    // A name that never resolves still times out (the step is not a no-op).
    t.notOk(checkDnsFinds(made, 'e-9.e.ns.svc.cluster.local', 'glibc'), 'another record: not found, timed out');
  },
);
