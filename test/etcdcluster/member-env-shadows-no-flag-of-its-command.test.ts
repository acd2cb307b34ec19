// Members restart in place, and a dependency that half-works is said: etcd refuses to start when a variable
// of its environment names a flag its command line also sets ("conflicting environment variable is shadowed by
// corresponding command-line flag", fatal, seen with etcd 3.6.9 and 3.5.21). spec.pod.etcdEnv is accepted with any
// name, and the hook sets its own flags on every member's command, among them --listen-metrics-urls, new with the
// liveness probe (1458f93d): an EtcdCluster whose etcdEnv carries ETCD_LISTEN_METRICS_URLS (a coreos-era way to get
// the metrics listener; it worked on member pods made before 1458f93d) now gets member pods whose etcd exits at every
// start: a bootstrap that starts over and over under new names without saying why, a lost member whose replacement
// never starts; and on etcd 3.3 (no learners) the hook's own move of members made before restart in place
// (restartPolicy Never, made without the flag: they run) removes a healthy member first and its replacements exit:
// after three tries the cluster runs 2 of 3 for good (Available=True Degraded), fault tolerance lost by an upgrade of
// metaops alone. What must hold: such a spec is refused (InvalidSpec naming the variable, no pod made), or the member
// pods made from it carry no variable that shadows a flag of their own command.
import t from 'tap';
import type { KubeObject } from '../../lib/metacontroller.js';
import { CRASHING, FakeEtcd, Loop, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { memberPod } from '../../hooks/etcdcluster/members.js';
import { etcdParent, etcdSpec } from '../fixtures/etcd.js';

/** The variables etcd reads for the flags a container's command sets (`--listen-metrics-urls` -> ETCD_LISTEN_METRICS_URLS). */
function shadowed(pod: KubeObject): string[] {
  const c = ((pod['spec'] as any).containers as any[]).find((x) => x.name === 'etcd');
  const flags = new Set(
    (c.command as string[])
      .filter((a) => a.startsWith('--'))
      .map((a) => `ETCD_${a.slice(2).split('=')[0]!.replace(/-/g, '_').toUpperCase()}`),
  );
  return ((c.env ?? []) as Array<{ name: string }>).map((e) => e.name).filter((n) => flags.has(n));
}

const memberPods = (loop: Loop) =>
  loop.children.filter((c) => c.kind === 'Pod' && c.metadata.name !== `${loop.name}-restore-check`);
const condition = (loop: Loop, type: string) => loop.s()?.conditions?.find((c: any) => c.type === type);

for (const name of ['ETCD_LISTEN_METRICS_URLS', 'ETCD_DATA_DIR', 'ETCD_INITIAL_CLUSTER_STATE']) {
  const env = [{ name, value: name === 'ETCD_LISTEN_METRICS_URLS' ? 'http://0.0.0.0:2381' : 'x' }];

  t.test(`a new cluster with ${name} in spec.pod.etcdEnv: refused, or its members start`, async (t) => {
    const loop = new Loop({ size: 3, version: '3.6.9', pod: { etcdEnv: env } }, new FakeEtcd());
    await loop.step();
    await loop.step();
    const pods = memberPods(loop);
    if (pods.length === 0) {
      t.match(
        condition(loop, 'Ready') ?? condition(loop, 'Synced'),
        { message: new RegExp(name) },
        'refused, naming it',
      );
      return;
    }
    for (const p of pods)
      t.same(shadowed(p), [], `${p.metadata.name}: no variable of its environment shadows a flag of its command`);
  });

  t.test(`a running cluster given ${name} in spec.pod.etcdEnv loses a member: its replacement can start`, async (t) => {
    const loop = await running({ size: 3, version: '3.6.9' });
    loop.spec = { ...loop.spec, pod: { etcdEnv: env } };
    await loop.step();
    loop.lose('e-2');
    for (let i = 1; i <= 4; i++) {
      loop.now = new Date(FIXED_NOW.getTime() + i * 60_000);
      await loop.step();
    }
    const made = memberPods(loop).filter((p) => !['e-0', 'e-1'].includes(p.metadata.name!));
    if (made.length === 0) {
      t.match(
        JSON.stringify(loop.s().conditions),
        new RegExp(name),
        'no replacement made: the spec refused, naming it',
      );
      return;
    }
    for (const p of made)
      t.same(shadowed(p), [], `${p.metadata.name}: no variable of its environment shadows a flag of its command`);
  });
}

t.test(
  'a cluster on etcd 3.3 made before restart in place, ETCD_LISTEN_METRICS_URLS in its etcdEnv: the move keeps it at size',
  async (t) => {
    // Made by the version before: restartPolicy Never, no --listen-metrics-urls on the command, the variable in the
    // environment (so etcd started, and served its metrics there).
    const env = [{ name: 'ETCD_LISTEN_METRICS_URLS', value: 'http://0.0.0.0:2381' }];
    const loop = await running({ size: 3, version: '3.3.25' });
    loop.etcd.clusterVersion = '3.3.0';
    loop.etcd.version = '3.3.25';
    await loop.step();
    loop.spec = { ...loop.spec, pod: { etcdEnv: env } };
    const old = new Set(loop.pods());
    for (const p of loop.children.filter((c) => c.kind === 'Pod') as any[]) {
      p.spec.restartPolicy = 'Never';
      const c = p.spec.containers.find((x: any) => x.name === 'etcd');
      c.command = c.command.filter((a: string) => !a.startsWith('--listen-metrics-urls'));
      c.env = [...(c.env ?? []), ...env];
    }
    for (let s = 0; s < 6 * 3600; s += 60) {
      loop.now = new Date(FIXED_NOW.getTime() + s * 1000);
      for (const p of loop.children.filter((c) => c.kind === 'Pod') as any[]) {
        const name = p.metadata.name;
        // etcd exits at every start on a variable that shadows a flag of its command (etcd's flags.verifyEnv).
        if (shadowed(p).length > 0) {
          loop.etcd.up.delete(name);
          loop.podStatus.set(name, CRASHING);
        } else loop.etcd.up.add(name);
      }
      await loop.step();
    }
    const status = loop.s();
    t.comment(
      `calls: ${loop.etcd.calls.join(', ')}; pods ${loop.pods().join(', ')} (made before: ${[...old].join(', ')})`,
    );
    t.equal(loop.etcd.members.length, 3, 'three members, as the spec asks');
    t.same(loop.pods().sort(), [...old].sort(), 'the members made before kept, none removed nor replaced');
    t.match(
      status.conditions.find((c: any) => c.type === 'Available'),
      { status: 'True', reason: 'QuorumAvailable' },
      'the fault tolerance it had before metaops was upgraded',
    );
  },
);

t.test(
  'every flag of every member command variant: its variable in spec.pod.etcdEnv is refused, naming it',
  async (t) => {
    const TLS = { static: { member: { peerSecret: 'peer', serverSecret: 'server' }, operatorSecret: 'op' } };
    const peerOnly = { static: { member: { peerSecret: 'peer' } } };
    const restore = { s3: { path: 'bucket/snap.db', awsSecret: 'aws' }, image: 'metaops:test' };
    for (const version of ['3.2.32', '3.3.25', '3.4.34', '3.5.21', '3.6.9']) {
      const flags = new Set<string>();
      for (const tls of [undefined, TLS, peerOnly])
        for (const state of ['new', 'existing'] as const)
          for (const r of [undefined, restore]) {
            const s = { version, ...(tls ? { TLS: tls } : {}) };
            const pod = memberPod({
              parent: etcdParent(s),
              spec: etcdSpec(s),
              name: 'e-0',
              initialCluster: 'e-0=http://x:2380',
              state,
              restore: r,
            });
            for (const name of shadowed({
              ...pod,
              spec: {
                ...(pod['spec'] as object),
                containers: (pod['spec'] as any).containers.map((c: any) => ({
                  ...c,
                  env: (c.command as string[])
                    .filter((a) => a.startsWith('--'))
                    .map((a) => ({ name: `ETCD_${a.slice(2).split('=')[0]!.replace(/-/g, '_').toUpperCase()}` })),
                })),
              },
            }))
              flags.add(name);
          }
      t.ok(flags.has('ETCD_DATA_DIR') && flags.has('ETCD_PEER_CERT_FILE') && flags.has('ETCD_CERT_FILE'), version);
      t.equal(flags.has('ETCD_LISTEN_METRICS_URLS'), version !== '3.2.32', `${version}: the metrics listener from 3.3`);
      for (const name of flags) {
        const s = {
          version,
          pod: {
            etcdEnv: [
              { name: 'ETCDCTL_API', value: '3' },
              { name, value: 'x' },
            ],
          },
        };
        t.match(
          etcdValueProblem(etcdParent(s)),
          new RegExp(`etcdEnv\\[1\\]\\.name ${name} is the variable of --`),
          `${version}: ${name}`,
        );
      }
      const fine = { version, pod: { etcdEnv: [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '8589934592' }] } };
      t.equal(
        etcdValueProblem(etcdParent(fine)),
        undefined,
        `${version}: a variable of no flag the hook sets is taken`,
      );
    }
  },
);
