// spec.pod.etcdEnv reaches the members' etcd container, whose etcd reads every ETCD_ variable as one of its flags and
// whose probes run etcdctl: only etcd's tuning variables (members.ts TUNING_VARIABLES) are taken among ETCD_ names,
// no ETCDCTL_ variable and no proxy; other names are the tenant's. A refused spec is InvalidSpec naming the variable;
// a running cluster so refused keeps its members.
import t from 'tap';
import { etcdValueProblem } from '../../hooks/etcdcluster/index.js';
import { shadowedVariables, TUNING_VARIABLES } from '../../hooks/etcdcluster/members.js';
import { etcdParent } from '../fixtures/etcd.js';
import { running } from '../fixtures/etcd-loop.js';

const problem = (name: string, version = '3.6.9') =>
  etcdValueProblem(etcdParent({ size: 3, version, pod: { etcdEnv: [{ name, value: '1' }] } }));

const refused = [
  'ETCD_WAL_DIR',
  'ETCD_ENABLE_GRPC_GATEWAY',
  'ETCD_LISTEN_CLIENT_HTTP_URLS',
  'ETCD_LOG_OUTPUTS',
  'ETCD_STRICT_RECONFIG_CHECK',
  'ETCD_AUTH_TOKEN',
  'ETCD_FORCE_NEW_CLUSTER',
  'ETCD_UNSAFE_NO_FSYNC',
  'ETCD_SOMETHING_A_LATER_RELEASE_ADDS',
  'ETCDCTL_API',
  'ETCDCTL_ENDPOINTS',
  'ETCDCTL_DIAL_TIMEOUT',
  'HTTP_PROXY',
  'https_proxy',
];
for (const name of refused)
  t.test(`${name} in spec.pod.etcdEnv is refused, naming it`, async (t) => {
    for (const version of ['3.2.13', '3.4.27', '3.5.21', '3.6.9'])
      t.match(problem(name, version), new RegExp(`spec\\.pod\\.etcdEnv\\[0\\]\\.name ${name} `), version);
  });

const taken = [
  'ETCD_QUOTA_BACKEND_BYTES',
  'ETCD_HEARTBEAT_INTERVAL',
  'ETCD_ELECTION_TIMEOUT',
  'ETCD_SNAPSHOT_COUNT',
  'ETCD_AUTO_COMPACTION_RETENTION',
  'ETCD_AUTO_COMPACTION_MODE',
  'ETCD_LOG_LEVEL',
  'ETCD_MAX_REQUEST_BYTES',
  'ETCD_MAX_TXN_OPS',
  'ETCD_GRPC_KEEPALIVE_MIN_TIME',
  'ETCD_EXPERIMENTAL_COMPACTION_BATCH_LIMIT',
  'ETCD_UNSUPPORTED_ARCH',
  'GOMAXPROCS',
  'GOMEMLIMIT',
  'TZ',
  'NO_PROXY',
];
for (const name of taken)
  t.test(`${name} in spec.pod.etcdEnv is taken`, async (t) => {
    for (const version of ['3.2.13', '3.4.27', '3.5.21', '3.6.9']) t.equal(problem(name, version), undefined, version);
  });

/** etcd's tuning flags (3.2-3.6 `etcd --help`), each of which spec.pod.etcdEnv may set as ETCD_<FLAG>. */
const TUNING = [
  'heartbeat-interval',
  'election-timeout',
  'initial-election-tick-advance',
  'pre-vote',
  'snapshot-count',
  'snapshot-catchup-entries',
  'experimental-snapshot-catchup-entries',
  'max-snapshots',
  'max-wals',
  'quota-backend-bytes',
  'backend-batch-interval',
  'backend-batch-limit',
  'backend-bbolt-freelist-type',
  'experimental-backend-bbolt-freelist-type',
  'auto-compaction-retention',
  'auto-compaction-mode',
  'compaction-batch-limit',
  'experimental-compaction-batch-limit',
  'compaction-sleep-interval',
  'experimental-compaction-sleep-interval',
  'bootstrap-defrag-threshold-megabytes',
  'experimental-bootstrap-defrag-threshold-megabytes',
  'memory-mlock',
  'experimental-memory-mlock',
  'max-request-bytes',
  'max-txn-ops',
  'max-concurrent-streams',
  'grpc-keepalive-min-time',
  'grpc-keepalive-interval',
  'grpc-keepalive-timeout',
  'watch-progress-notify-interval',
  'experimental-watch-progress-notify-interval',
  'warning-apply-duration',
  'experimental-warning-apply-duration',
  'warning-unary-request-duration',
  'experimental-warning-unary-request-duration',
  'experimental-txn-mode-write-with-shared-buffer',
  'experimental-stop-grpc-service-on-defrag',
  'experimental-enable-lease-checkpoint',
  'experimental-enable-lease-checkpoint-persist',
  'initial-corrupt-check',
  'experimental-initial-corrupt-check',
  'corrupt-check-time',
  'experimental-corrupt-check-time',
  'compact-hash-check-time',
  'experimental-compact-hash-check-enabled',
  'experimental-compact-hash-check-time',
  'feature-gates',
  'log-level',
  'log-format',
  'debug',
  'log-package-levels',
  'logger',
  'metrics',
  'enable-pprof',
  'enable-v2',
  'unsupported-arch',
].map((flag) => `ETCD_${flag.replace(/-/g, '_').toUpperCase()}`);

t.test("each of etcd's tuning variables is taken, and no other ETCD_ name", async (t) => {
  for (const name of TUNING) t.equal(problem(name), undefined, name);
  t.same([...TUNING_VARIABLES].sort(), [...TUNING].sort(), 'the allowlist is these');
});

t.test('no tuning variable is one a member command sets (etcd 3.5+ would exit on it)', async (t) => {
  for (const version of ['3.2.13', '3.3.27', '3.4.27', '3.5.21', '3.6.9']) {
    const shadowed = shadowedVariables(version);
    t.same(
      [...TUNING_VARIABLES].filter((v) => shadowed.has(v)),
      [],
      version,
    );
  }
});

t.test(
  'a running cluster given ETCD_WAL_DIR in spec.pod.etcdEnv keeps its members, InvalidSpec naming it',
  async (t) => {
    const loop = await running({ size: 3, version: '3.6.9' });
    const before = loop.pods();
    loop.spec = { ...loop.spec, pod: { etcdEnv: [{ name: 'ETCD_WAL_DIR', value: '/var/etcd/wal' }] } };
    await loop.step();
    await loop.step();
    const ready = loop.s().conditions.find((c: any) => c.type === 'Ready');
    t.equal(ready?.reason, 'InvalidSpec');
    t.match(ready?.message, /ETCD_WAL_DIR/);
    t.same(loop.pods(), before, 'its members kept');
    t.same(loop.etcd.calls, [], 'no membership change');
  },
);
