// The restore check's etcd (etcd-start: the restored members' image, flags and env) is read from what its pod says,
// which is observed input: its readiness, its exit, its last log lines (FallbackToLogsOnError).
//
// Must hold: the check's etcd serves its metrics (as a member's does, 3.3+) on the pod's loopback; only `ready: true`
// is ready (a string "true" is not: the check waits); an etcd killed under it (137, 143) proves nothing whatever its
// logs say (they are etcd's, not a verdict: made again, or past the deadline refused as killed); the reason names the
// last of etcd's JSON log lines whose `msg` and `error` are strings (one whose error is no string is skipped), read
// from its last 80 lines, each at most 2000 characters (a longer one is no JSON read: the last line is told as text);
// a check pod's busybox image given without a tag is at :latest, in whatever registry a mirror webhook points it to.
import t from 'tap';
import { checkVerdict, etcdStartContainer, restoreCheckPod, sameCheck } from '../../hooks/etcdcluster/restore.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const since = '2026-01-02T03:04:05Z';

function pod(etcd: Record<string, unknown>): any {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'e-restore-check' },
    spec: { containers: [{ name: 'etcd-start', image: 'quay.io/coreos/etcd:v3.6.9' }] },
    status: {
      phase: 'Running',
      containerStatuses: [
        { name: 'check', state: { terminated: { exitCode: 0 } } },
        { name: 'etcd-start', ...etcd },
      ],
    },
  };
}

const exited = (message: string, exitCode = 1) => pod({ ready: false, state: { terminated: { exitCode, message } } });
const reason = (message: string) => (checkVerdict(exited(message), since, FIXED_NOW) as { reason?: string }).reason;
const line = (msg: string, error: unknown) => JSON.stringify({ level: 'warn', msg, error });

t.test('only a readiness of true is ready', async (t) => {
  t.same(checkVerdict(pod({ ready: true, state: { running: {} } }), since, FIXED_NOW), { state: 'passed' });
  t.same(checkVerdict(pod({ ready: 'true', state: { running: {} } }), since, FIXED_NOW), { state: 'waiting' });
  t.same(checkVerdict(pod({ ready: 1, state: { running: {} } }), since, FIXED_NOW), { state: 'waiting' });
});

t.test('an etcd killed under it proves nothing, whatever its logs say', async (t) => {
  const logged = JSON.stringify({ level: 'warn', msg: 'received signal', reason: 'terminated' });
  t.same(checkVerdict(exited(logged, 137), since, FIXED_NOW), { state: 'again' }, '137');
  t.same(checkVerdict(exited(logged, 143), since, FIXED_NOW), { state: 'again' }, '143');
  t.match(checkVerdict(exited(logged, 1), since, FIXED_NOW), { state: 'failed' }, 'an exit of its own fails it');
  // Past the check's deadline (no new run): refused as killed under it, not as an etcd that refused its start.
  const late = new Date(Date.parse(since) + 601_000);
  const refused = checkVerdict(exited(logged, 137), since, late) as { state: string; reason?: string };
  t.equal(refused.state, 'failed');
  t.match(refused.reason, /etcd-start ended under it, exit 137/);
  t.notMatch(refused.reason, /exited at start/);
});

t.test("the reason: etcd's last JSON line with a msg and an error, from its last 80 lines of 2000", async (t) => {
  const flags = line('failed to verify flags', 'invalid value "8G" for ETCD_SNAPSHOT_COUNT');
  t.match(reason(flags), /exited at start with 1: failed to verify flags: invalid value "8G"/);
  const odd = line('closing', { code: 5 });
  const r = reason(`${flags}\n${odd}`);
  t.match(r, /: failed to verify flags: invalid value "8G"/, 'an error that is no string is skipped');
  t.notMatch(r, /closing/);
  const later = Array.from({ length: 80 }, (_, i) => `plain line ${i}`);
  const far = reason([flags, ...later].join('\n'));
  t.match(far, /exited at start with 1: plain line 79$/, 'a line before the last 80 is not read: the last told');
  t.match(reason([flags, ...later.slice(1)].join('\n')), /: failed to verify flags/, 'the 80th from the end is');
  const long = line('failed to verify flags', `invalid value ${'x'.repeat(2000)}`);
  t.match(reason(long), /exited at start with 1: \{"level":"warn"/, 'a line past 2000 characters is no JSON read');
});

t.test("the check's etcd serves its metrics on the pod's loopback, as a member's etcd serves them", async (t) => {
  const command = etcdStartContainer({ size: 3, version: '3.6.9', repository: 'quay.io/coreos/etcd' } as any)[
    'command'
  ] as string[];
  t.same(
    command.filter((a) => a.startsWith('--listen-metrics-urls=')),
    ['--listen-metrics-urls=http://127.0.0.1:2381'],
  );
});

t.test('a check pod whose untagged busybox image a mirror webhook rewrote at :latest is the check given', async (t) => {
  const parent: any = { metadata: { name: 'e', namespace: 'n', uid: 'u' }, spec: {} };
  const spec: any = { size: 3, version: '3.6.9', repository: 'quay.io/coreos/etcd', pod: { busyboxImage: 'busybox' } };
  const expected = restoreCheckPod(
    parent,
    spec,
    { s3: { path: 'b/n/s.db', awsSecret: 'aws' }, image: 'metaops:test' },
    'uid-r',
  ) as any;
  const observed = structuredClone(expected);
  const step = observed.spec.initContainers.find((c: any) => c.name === 'busybox-image');
  step.image = 'mirror.example.com/library/busybox:latest';
  t.ok(sameCheck(observed, expected), 'no tag given reads as latest');
  step.image = 'mirror.example.com/library/busybox:1.36';
  t.notOk(sameCheck(observed, expected), 'another tag is another image');
});
