// A member's readiness probe (before etcd 3.6 `etcdctl alarm list`, `etcdctl endpoint health` before that) and, before etcd 3.3, its liveness probe (`etcdctl endpoint
// status`) are etcdctl v3 commands: the hook sets ETCDCTL_API=3 on the etcd container for them (etcdctl before 3.4
// speaks v2 unless told). spec.pod.etcdEnv is appended after it, and the kubelet takes the last entry of a name: a
// tenant's ETCDCTL_API (2, as coreos-era runbooks set it for `etcdctl cluster-health`) reaches the probes. etcdctl then
// runs v2 (no `endpoint` command, 3.2-3.4) or exits "unsupported API version" (3.5+): every member is never Ready
// (the client Service has no endpoints, backups dial nothing, the PodDisruptionBudget counts no healthy member and
// lets a drain evict them all), and on etcd before 3.3 the liveness probe restarts every member every 3 minutes.
//
// Must hold: a spec whose etcdEnv would change what the probes' etcdctl runs is refused (InvalidSpec, nothing made),
// or the probes run etcdctl v3 whatever etcdEnv says.
import t from 'tap';
import { etcdFirstSync } from '../fixtures/etcd.js';

type Env = Array<{ name: string; value?: string }>;

/** The value of `name` in a container's env as the kubelet resolves it (the last entry of a name wins). */
const resolved = (env: Env, name: string): string | undefined => env.filter((e) => e.name === name).at(-1)?.value;

for (const version of ['3.2.13', '3.4.27', '3.5.21']) {
  t.test(`etcd ${version}: spec.pod.etcdEnv ETCDCTL_API=2 never reaches the members' probes`, async (t) => {
    const res = (await etcdFirstSync({
      size: 3,
      version,
      pod: { etcdEnv: [{ name: 'ETCDCTL_API', value: '2' }] },
    })) as { status?: any; children: any[] };
    const pods = res.children.filter((c) => c.kind === 'Pod');
    const ready = (res.status?.conditions ?? []).find((c: any) => c.type === 'Ready');
    if (pods.length === 0) {
      t.equal(ready?.reason, 'InvalidSpec', 'refused, nothing made');
      return;
    }
    for (const p of pods) {
      const etcd = p.spec.containers.find((c: any) => c.name === 'etcd');
      const probes = [etcd.readinessProbe, etcd.livenessProbe, etcd.startupProbe].filter((x: any) =>
        x?.exec?.command?.[0]?.endsWith('etcdctl'),
      );
      t.ok(probes.length > 0, `${p.metadata.name} has etcdctl probes`);
      const api = resolved(etcd.env ?? [], 'ETCDCTL_API');
      t.equal(api, '3', `${p.metadata.name}: its probes' etcdctl runs with ETCDCTL_API=${api}`);
    }
  });
}
