// A restore checks before it acts (issue 30.5): before any running member is dropped, the check pod proves that the
// restored members' etcd can start. spec.pod.etcdEnv reaches only member pods made after it is set: a value etcd
// refuses (a quota written `8G`, where etcd takes bytes: "invalid value", exit 1) added to a running cluster changes
// nothing until a restore, whose members all exit at start. `etcd --version` (the check's etcd-image step) exits before
// etcd reads its variables; so the check starts etcd itself (its container etcd-start): the members' image, the flags
// a member's command sets, the members' env, on the pod's own loopback and an empty data directory. The check passes
// only once that etcd is Ready; one that exits fails the check with what etcd said, the running members kept.
import t from 'tap';
import { memberPod, type MemberPodOptions } from '../../hooks/etcdcluster/members.js';
import { checkVerdict, restoreCheckPod, sameCheck } from '../../hooks/etcdcluster/restore.js';
import { restoreObject, running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const parent: any = {
  apiVersion: 'etcd.database.coreos.com/v1beta2',
  kind: 'EtcdCluster',
  metadata: { name: 'e', namespace: 'n', uid: 'u' },
  spec: {},
};
const etcdEnv = [
  { name: 'ETCD_SNAPSHOT_COUNT', value: '8G' },
  { name: 'ETCD_HEARTBEAT_INTERVAL', valueFrom: { configMapKeyRef: { name: 'etcd-conf', key: 'heartbeat' } } },
];
const spec: any = { size: 3, version: '3.6.9', repository: 'quay.io/coreos/etcd', pod: { etcdEnv } };
const source = { s3: { path: 'bucket/n/snap.db', awsSecret: 'aws' }, image: 'metaops:test' };
const flags = (command: string[]) => command.filter((a) => a.startsWith('--')).map((a) => a.split('=')[0]);

t.test("the check pod starts etcd on the members' image, flags and env, on its own loopback", async (t) => {
  const pod = restoreCheckPod(parent, spec, source, 'uid-r') as any;
  const etcd = pod.spec.containers.find((c: any) => c.name === 'etcd-start');
  const member = memberPod({
    parent,
    spec,
    name: 'e-3',
    initialCluster: 'e-3=http://e-3.e.n.svc:2380',
    state: 'new',
    restore: source,
  } as MemberPodOptions) as any;
  const memberEtcd = member.spec.containers.find((c: any) => c.name === 'etcd');
  t.equal(etcd.image, memberEtcd.image, "the restored members' etcd image");
  t.same(etcd.env, memberEtcd.env, "the restored members' env, as they take it");
  t.same(flags(etcd.command), flags(memberEtcd.command), 'the flags a member sets (so the same variables are read)');
  t.equal(etcd.command[0], '/usr/local/bin/etcd');
  for (const a of etcd.command.filter((x: string) => x.includes('://')))
    t.match(a, /^--[a-z-]+=(?:[a-z-]+=)?http:\/\/127\.0\.0\.1:\d+$/, `${a}: on the pod's loopback only`);
  t.same(etcd.volumeMounts, [{ name: 'etcd-start-data', mountPath: '/var/etcd' }]);
  t.ok(pod.spec.volumes.some((v: any) => v.name === 'etcd-start-data' && v.emptyDir));
  t.same(etcd.readinessProbe.exec.command, [
    '/usr/local/bin/etcdctl',
    '--endpoints=http://127.0.0.1:2379',
    'endpoint',
    'health',
  ]);
  t.equal(etcd.terminationMessagePolicy, 'FallbackToLogsOnError', 'its last log lines say why it exited');
  t.same(etcd.securityContext, { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } });
  t.equal(pod.spec.restartPolicy, 'Never');
  t.equal(pod.spec.automountServiceAccountToken, false);
  // The spec's etcdEnv edited since the check pod was made (a value its etcd never read): not the check asked for.
  const edited = [{ name: 'ETCD_QUOTA_BACKEND_BYTES', value: '8589934592' }, etcdEnv[1]];
  const asked = restoreCheckPod(parent, { ...spec, pod: { etcdEnv: edited } }, source, 'uid-r') as any;
  t.notOk(sameCheck({ ...asked, status: {} }, pod), 'a check made with other etcdEnv values is not the one asked for');
  t.ok(sameCheck({ ...pod, status: {} }, pod), 'the same check is');
});

t.test("the check's verdict waits for its etcd to serve, and fails on an etcd that exited", async (t) => {
  const since = '2026-01-02T03:04:05Z';
  const pod = (etcd: Record<string, unknown> | undefined, check: Record<string, unknown> = { exitCode: 0 }) =>
    ({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'e-restore-check' },
      spec: { containers: [{ name: 'etcd-start', image: 'quay.io/coreos/etcd:v3.6.9' }] },
      status: {
        phase: 'Running',
        containerStatuses: [{ name: 'check', state: { terminated: check } }, ...(etcd ? [etcd] : [])],
      },
    }) as any;
  t.same(checkVerdict(pod({ name: 'etcd-start', ready: true, state: { running: {} } }), since, FIXED_NOW), {
    state: 'passed',
  });
  t.same(checkVerdict(pod({ name: 'etcd-start', ready: false, state: { running: {} } }), since, FIXED_NOW), {
    state: 'waiting',
  });
  t.same(checkVerdict(pod(undefined), since, FIXED_NOW), { state: 'waiting' }, 'no word of its etcd: waiting');
  const said =
    '{"level":"info","msg":"Running: "}\n{"level":"warn","ts":"2026-01-02T03:04:06Z","caller":"etcdmain/etcd.go:72","msg":"failed to verify flags","error":"invalid value \\"8G\\" for ETCD_SNAPSHOT_COUNT: strconv.ParseUint: parsing \\"8G\\": invalid syntax"}\n';
  const exited = pod({ name: 'etcd-start', ready: false, state: { terminated: { exitCode: 1, message: said } } });
  const verdict = checkVerdict(exited, since, FIXED_NOW) as any;
  t.equal(verdict.state, 'failed');
  t.match(verdict.reason, /etcd \(image quay\.io\/coreos\/etcd:v3\.6\.9, spec\.pod\.etcdEnv\) exited at start with 1/);
  t.match(verdict.reason, /failed to verify flags: invalid value "8G" for ETCD_SNAPSHOT_COUNT/);
  // A snapshot that failed its check is said first.
  t.match(
    checkVerdict(
      pod(exited.status.containerStatuses[1], { exitCode: 1, message: '{"reason":"NoSuchKey"}' }),
      since,
      FIXED_NOW,
    ),
    {
      state: 'failed',
      reason: 'NoSuchKey',
    },
  );
  // Killed under it (an OOM kill, lost by the runtime): proves nothing, made again.
  const killed = pod({ name: 'etcd-start', state: { terminated: { exitCode: 137, reason: 'OOMKilled' } } });
  t.same(checkVerdict(killed, since, FIXED_NOW), { state: 'again' });
  // Never Ready, to the deadline: refused, naming it.
  const late = new Date(Date.parse(since) + 601_000);
  t.match(checkVerdict(pod({ name: 'etcd-start', ready: false, state: { running: {} } }), since, late), {
    state: 'failed',
    reason: /etcd started as the restored members' will be \(etcd-start\) was not ready within 10 minutes/,
  });
});

t.test("a restore whose members' etcd exits at start drops no running member and fails saying why", async (t) => {
  const loop = await running({
    size: 3,
    version: '3.6.9',
    pod: { etcdEnv: [{ name: 'ETCD_SNAPSHOT_COUNT', value: '8G' }] },
  });
  const live = loop.pods();
  t.same(live, ['e-0', 'e-1', 'e-2']);
  loop.related = [restoreObject('r', '2026-07-01T00:00:00Z')];
  await loop.step();
  t.ok(loop.checkPod(), 'the check pod is made');
  loop.podStatus.set('e-restore-check', {
    phase: 'Failed',
    containerStatuses: [
      { name: 'check', state: { terminated: { exitCode: 0, message: JSON.stringify({ succeeded: true }) } } },
      {
        name: 'etcd-start',
        ready: false,
        state: {
          terminated: {
            exitCode: 1,
            message:
              '{"level":"warn","msg":"failed to verify flags","error":"invalid value \\"8G\\" for ETCD_SNAPSHOT_COUNT: strconv.ParseUint: parsing \\"8G\\": invalid syntax"}',
          },
        },
      },
    ],
  });
  for (let i = 0; i < 3; i++) await loop.step();
  t.same(loop.pods(), live, 'every running member kept');
  t.notOk(loop.checkPod(), 'the check pod goes');
  const restore = loop.s().restore;
  t.match(restore, { phase: 'Failed' });
  t.match(JSON.stringify(loop.s()), /invalid value \\"8G\\" for ETCD_SNAPSHOT_COUNT/);
});
