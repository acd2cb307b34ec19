// A restore checks before it acts (issue 30.5): the check pod starts the restored members' spec.pod.busyboxImage
// (its busybox-image step) so that an image the restored members cannot run is found before any running member is
// dropped. But that step runs `/bin/sh -c true`, and a restored member's first step (check-dns, from the same image)
// runs `nslookup` in a loop: an image with a shell and no nslookup (debian:bookworm-slim, ubuntu, a company base
// image put in place of busybox for a registry policy; spec.pod reaches only pods made after it is set, so no running
// member ever ran it) passes the check, every running member is dropped, and every restored member loops in
// check-dns for ever (`nslookup: not found`, DNSTimeoutInSecond 0) or crash-loops in it: no member left.
//
// Must hold: each program a restored member's steps run from busyboxImage is run by the check's step from it.
import t from 'tap';
import { memberPod, type MemberPodOptions } from '../../hooks/etcdcluster/members.js';
import { restoreCheckPod } from '../../hooks/etcdcluster/restore.js';

const parent: any = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'e', namespace: 'n', uid: 'u' },
  spec: {},
};
const spec: any = {
  size: 3,
  version: '3.5.21',
  repository: 'quay.io/coreos/etcd',
  pod: { busyboxImage: 'registry.example/base/debian:bookworm-slim' },
};
const source = { s3: { path: 'bucket/n/snap.db', awsSecret: 'aws' }, image: 'metaops:test' };

/** The programs a shell script calls (the first word of each command), but shell keywords and builtins. */
function programs(script: string): Set<string> {
  const builtins = new Set([
    'while',
    'do',
    'done',
    'if',
    'then',
    'fi',
    'for',
    'in',
    'exit',
    'echo',
    'return',
    '[',
    '{',
    '}',
    'set',
    'true',
    'found()',
    'found',
    'TIMEOUT_READY',
  ]);
  const out = new Set<string>();
  for (const line of script.split(/\n|;|\(|\)|\|\||&&|\$\(/)) {
    const word = line.trim().split(/\s+/)[0] ?? '';
    if (!/^[a-z][a-z0-9_.-]*$/.test(word) || builtins.has(word)) continue;
    out.add(word);
  }
  return out;
}

t.test("the check's busybox step runs what the restored members' steps run from busyboxImage", async (t) => {
  const snapshot = { sha256: 'a'.repeat(64) };
  const member = memberPod({
    parent,
    spec,
    name: 'e-3',
    initialCluster: 'e-3=http://e-3.e.n.svc:2380',
    state: 'new',
    restore: { ...source, snapshot },
  } as MemberPodOptions) as any;
  const fromBusybox = member.spec.initContainers.filter((c: any) => c.image === spec.pod.busyboxImage);
  t.ok(fromBusybox.length > 0, `restored member steps on busyboxImage: ${fromBusybox.map((c: any) => c.name)}`);
  const needed = new Set<string>();
  for (const c of fromBusybox) for (const p of programs(c.command.slice(2).join('\n'))) needed.add(p);
  t.ok(needed.has('nslookup'), `programs the restored member runs from it: ${[...needed].join(', ')}`);

  const check = restoreCheckPod(parent, spec, source, 'uid-r') as any;
  const step = check.spec.initContainers.find((c: any) => c.image === spec.pod.busyboxImage);
  const ran = programs((step?.command ?? []).slice(2).join('\n'));
  for (const p of needed)
    t.ok(ran.has(p), `the check runs ${p} from busyboxImage (it runs: ${JSON.stringify(step?.command)})`);
});
