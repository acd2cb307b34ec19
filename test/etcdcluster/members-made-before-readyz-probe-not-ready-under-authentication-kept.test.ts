// Member pods made before the readiness probe became one etcd answers without credentials (`etcdctl endpoint health`
// from before; `etcdctl alarm list` on a member made before 3.6 and moved in place to 3.6+, which 3.6 refuses without
// credentials) keep that probe: a container's probes cannot change in place. With etcd's authentication enabled on
// 3.6+ they are NotReady while they serve. What the hook does with them, each answer fed back as the next observed
// state:
// - etcd refuses the member list without credentials (3.6+ with authentication: AuthenticationEnabled): the cluster is
//   held; nothing is removed, replaced or made again, whatever the pods' readiness, and the probes stay as they are.
// - etcd answers the member list and /health (which etcd answers with authentication on), the pods NotReady: a member
//   is replaced only when the hook's own health check fails for UNHEALTHY_REPLACE_SECONDS, never for its pod's
//   readiness alone: the members stay, the cluster is said Available at full strength of etcd members.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import type { KubeObject } from '../../lib/index.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/** The readiness probe member pods were made with before this version. */
const OLD_PROBE = {
  exec: { command: ['/usr/local/bin/etcdctl', '--endpoints=http://localhost:2379', 'endpoint', 'health'] },
  initialDelaySeconds: 1,
  periodSeconds: 5,
  timeoutSeconds: 5,
  failureThreshold: 3,
};

const NOT_READY = {
  conditions: [
    { type: 'Ready', status: 'False', lastTransitionTime: '2026-06-01T00:00:00Z' },
    { type: 'ContainersReady', status: 'False', lastTransitionTime: '2026-06-01T00:00:00Z' },
  ],
  containerStatuses: [{ name: 'etcd', ready: false, restartCount: 0, state: { running: {} } }],
};

const probeOf = (p: KubeObject) =>
  ((p as any).spec.containers as any[]).find((c) => c.name === 'etcd').readinessProbe as unknown;

async function madeBefore() {
  const loop = await running({ size: 3, version: '3.6.9' });
  loop.etcd.version = '3.6.9';
  loop.etcd.clusterVersion = '3.6.0';
  for (const c of loop.children)
    if (c.kind === 'Pod')
      ((c as any).spec.containers as any[]).find((x) => x.name === 'etcd').readinessProbe = OLD_PROBE;
  for (const p of loop.pods()) loop.podStatus.set(p, NOT_READY);
  return loop;
}

t.test('authentication on, the member list refused: the NotReady members are held, none replaced', async (t) => {
  const loop = await madeBefore();
  loop.etcd.listError = new EtcdError('etcdserver: user name is empty', 'Unauthenticated');
  const before = structuredClone(loop.children.filter((c) => c.kind === 'Pod'));
  for (let s = 1; s <= 60; s++) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 60_000);
    await loop.step();
  }
  t.same(loop.etcd.calls, [], 'no membership change in an hour');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'no pod deleted or made');
  for (const p of loop.children.filter((c) => c.kind === 'Pod'))
    t.same(
      probeOf(p),
      probeOf(before.find((b) => b.metadata.name === p.metadata.name)!),
      `${p.metadata.name}: spec kept`,
    );
  const available = loop.s().conditions.find((c: any) => c.type === 'Available');
  t.match(available, { status: 'Unknown', reason: 'AuthenticationEnabled' });
});

t.test('the member list answered, every member healthy but its pod NotReady: none replaced', async (t) => {
  const loop = await madeBefore();
  for (let s = 1; s <= 60; s++) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 60_000);
    await loop.step();
  }
  t.same(loop.etcd.calls, [], 'no membership change in an hour');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'no pod deleted or made');
  for (const p of loop.children.filter((c) => c.kind === 'Pod')) t.same(probeOf(p), OLD_PROBE, 'the probe kept');
  const cond = (type: string) => loop.s().conditions.find((c: any) => c.type === type);
  t.comment(JSON.stringify([cond('Available'), cond('Ready'), cond('Recovering')]));
  t.match(cond('Available'), { status: 'True' });
});
