// The decision modules mutation testing guards (docs/mutation.md), each with the fast test files that guard it and
// its target score: 85% for the code that guards data and access, 70% elsewhere, 80% for the modules issue 35 added.
// scripts/mutation-changed.ts runs them; stryker.config.json (`npm run test:mutation`) must list every one of them and
// their test files (test/mutation-config.test.ts checks it).
/** The tests of the EtcdCluster plan, which builds the member pods too. */
const ETCD_PLAN_TESTS = [
  'test/etcdcluster.test.ts',
  'test/etcd-safety.test.ts',
  'test/etcd-plan.test.ts',
  'test/etcd-plan-branches.test.ts',
  'test/etcd-plan-survivors.test.ts',
];

/** The tests of the HTTP layer (lib/app.ts and its plugins). */
const HTTP_TESTS = [
  'test/app.test.ts',
  'test/attack-session.test.ts',
  'test/http.test.ts',
  'test/etag.test.ts',
  'test/security.test.ts',
  'test/attack-framework.test.ts',
];

/** Each mutated module: the fast test files that guard it, and its target score. */
export const MODULES: Record<string, { tests: string[]; target: number }> = {
  'lib/auth.ts': { tests: ['test/security.test.ts', 'test/attack.test.ts'], target: 85 },
  // The HTTP layer: the app and its plugins (the guard, instrumentation, the hook routes, the route list), and the
  // answer (the deadline and the ETag, whose target was 85 within lib/app.ts already).
  ...Object.fromEntries(
    ['lib/app.ts', 'lib/guard.ts', 'lib/instrument.ts', 'lib/hook-routes.ts', 'lib/routes.ts'].map((file) => [
      file,
      { tests: HTTP_TESTS, target: 70 },
    ]),
  ),
  'lib/answer.ts': { tests: HTTP_TESTS, target: 85 },
  'lib/config.ts': { tests: ['test/config.test.ts', 'test/security.test.ts'], target: 70 },
  'lib/json.ts': { tests: ['test/lib.test.ts', 'test/http.test.ts', 'test/attack-session.test.ts'], target: 70 },
  'lib/objects.ts': {
    tests: [
      'test/lib.test.ts',
      'test/app.test.ts',
      'test/attack-session.test.ts',
      'test/attack-framework.test.ts',
      'test/namespaces.test.ts',
      'test/attack.test.ts',
      'test/memcached.test.ts',
      'test/mysqlcluster.test.ts',
      'test/podset.test.ts',
      'test/convergence.test.ts',
      'test/hook-versions.test.ts',
      'test/etcd-tls.test.ts',
    ],
    target: 70,
  },
  'hooks/etcdcluster/plan.ts': {
    tests: [
      ...ETCD_PLAN_TESTS,
      'test/attack-restore.test.ts',
      'test/etcd-upgrade.test.ts',
      'test/etcd-upgrade-last-member-fails.test.ts',
      'test/etcd-majority-lost-without-storage.test.ts',
      'test/etcd-restore-new-after-failed.test.ts',
      'test/etcd-restarts.test.ts',
      'test/etcd-restore-check.test.ts',
      'test/etcd-restore-aws-text.test.ts',
      'test/etcd-restore-source-edited-after-check.test.ts',
      'test/etcd-restore-status-lost-past-no-return.test.ts',
      'test/etcd-restore-during-failed-upgrade.test.ts',
      'test/etcd-restore-pin-and-retry.test.ts',
    ],
    target: 85,
  },
  // Whose etcd a cluster reads and acts on (issue 29.1), and how many dials a sync makes (29.4).
  'hooks/etcdcluster/identity.ts': { tests: ['test/etcd-identity.test.ts', 'test/etcd-dials.test.ts'], target: 85 },
  'hooks/etcdcluster/observe.ts': {
    tests: [
      'test/etcd-identity.test.ts',
      'test/etcd-dials.test.ts',
      'test/etcdcluster.test.ts',
      'test/etcd-tls.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcommon/identity.ts': { tests: ['test/etcd-identity.test.ts'], target: 85 },
  'hooks/etcdcommon/etcd.ts': {
    tests: [
      'test/etcd-client.test.ts',
      'test/etcd-limits.test.ts',
      'test/etcd-identity.test.ts',
      'test/etcd-dials.test.ts',
      'test/deadlines.test.ts',
    ],
    target: 85,
  },
  // A failed upgrade stops (30.4), members restart in place (30.1), a restore checks before it acts (30.5).
  'hooks/etcdcluster/upgrade.ts': {
    tests: ['test/etcd-upgrade.test.ts', 'test/etcd-upgrade-last-member-fails.test.ts'],
    target: 85,
  },
  'hooks/etcdcluster/pods.ts': {
    tests: [
      ...ETCD_PLAN_TESTS,
      'test/etcd-upgrade.test.ts',
      'test/etcd-restarts.test.ts',
      'test/etcd-restore-aws-text.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcluster/restore.ts': {
    tests: [
      'test/etcd-restore-check.test.ts',
      'test/etcd-restore-aws-text.test.ts',
      'test/etcd-restore-pin-and-retry.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcommon/snapshot.ts': {
    tests: ['test/etcd-restore-check.test.ts', 'test/etcd-snapshot-pin.test.ts'],
    target: 85,
  },
  'hooks/etcdcluster/members.ts': {
    tests: [
      ...ETCD_PLAN_TESTS,
      'test/etcd-members.test.ts',
      'test/attack-framework.test.ts',
      'test/etcd-restore-pin-and-retry.test.ts',
    ],
    target: 70,
  },
  'hooks/s3/policy.ts': { tests: ['test/s3-policy.test.ts', 'test/s3-ownership.test.ts'], target: 85 },
  'lib/aws-text.ts': { tests: ['test/s3-policy.test.ts', 'test/etcd-backup.test.ts'], target: 85 },
  'hooks/s3/sync.ts': {
    tests: [
      'test/s3-policy.test.ts',
      'test/s3-ownership.test.ts',
      'test/attack-restore.test.ts',
      'test/s3-crash.test.ts',
      'test/collisions.test.ts',
      'test/field-cases.test.ts',
      'test/s3-bucket-claim.test.ts',
      'test/s3-refusal-names-no-owner.test.ts',
      'test/s3-secret-name-held-while-holder-exists.test.ts',
    ],
    target: 85,
  },
  'hooks/s3/plan.ts': {
    tests: ['test/s3-plan.test.ts', 'test/s3-ownership.test.ts', 'test/s3-policy.test.ts'],
    target: 85,
  },
  'hooks/podbuggertool/match.ts': {
    tests: [
      'test/podbuggertool-match.test.ts',
      'test/podbuggertool.test.ts',
      'test/podbuggertool-status.test.ts',
      'test/podbuggertool-container-name-unique.test.ts',
      'test/podbuggertool-sidecar-target.test.ts',
      'test/podbuggertool-refusal-backoff.test.ts',
      'test/podbuggertool-slow-api-server-backs-off.test.ts',
    ],
    target: 85,
  },
  'hooks/podbuggertool/sync.ts': {
    tests: [
      'test/podbuggertool-status.test.ts',
      'test/podbuggertool.test.ts',
      'test/podbuggertool-author.test.ts',
      'test/podbuggertool-revocation.test.ts',
    ],
    target: 85,
  },
  'hooks/podbuggertool/inject.ts': {
    tests: [
      'test/podbuggertool.test.ts',
      'test/podbuggertool-author.test.ts',
      'test/attack-framework.test.ts',
      'test/podbuggertool-revocation.test.ts',
      'test/podbuggertool-refusal-backoff.test.ts',
      'test/podbuggertool-retry-survives-metacontroller-restart.test.ts',
      'test/podbuggertool-slow-api-server-backs-off.test.ts',
      'test/podbuggertool-many-failing-tools-back-off.test.ts',
    ],
    target: 85,
  },
  'hooks/podbuggertool/author.ts': {
    tests: [
      'test/podbuggertool-author.test.ts',
      'test/podbuggertool-status.test.ts',
      'test/podbuggertool.test.ts',
      'test/podbuggertool-revocation.test.ts',
    ],
    target: 85,
  },
  'hooks/mysqlcluster/sync.ts': {
    tests: [
      'test/mysqlcluster.test.ts',
      'test/convergence.test.ts',
      'test/mysql-secrets.test.ts',
      'test/attack-restore.test.ts',
      'test/workload-status.test.ts',
      'test/collisions.test.ts',
      'test/values.test.ts',
      'test/field-cases.test.ts',
      'test/names-upgrade.test.ts',
      'test/mysql-primary-peers.test.ts',
      'test/mysql-new-cluster-secret-never-created.test.ts',
      'test/mysql-members-owned-by-statefulset.test.ts',
      'test/mysql-storage-class-empty.test.ts',
    ],
    target: 85,
  },
  'hooks/podset/sync.ts': {
    tests: [
      'test/podset.test.ts',
      'test/podset-rollout.test.ts',
      'test/collisions.test.ts',
      'test/values.test.ts',
      'test/convergence.test.ts',
      'test/field-cases.test.ts',
      'test/names-upgrade.test.ts',
    ],
    target: 70,
  },
  'hooks/podset/rollout.ts': { tests: ['test/podset-rollout.test.ts', 'test/podset.test.ts'], target: 70 },
  'hooks/memcached/sync.ts': {
    tests: [
      'test/memcached.test.ts',
      'test/workload-status.test.ts',
      'test/collisions.test.ts',
      'test/values.test.ts',
      'test/field-cases.test.ts',
      'test/names-upgrade.test.ts',
    ],
    target: 70,
  },
  /** Child names another owner holds: what a parent never takes or serves. */
  'lib/ownership.ts': {
    tests: [
      'test/collisions.test.ts',
      'test/field-cases.test.ts',
      'test/ownership-held-records.test.ts',
      'test/s3-secret-name-held-while-holder-exists.test.ts',
    ],
    target: 85,
  },
  /** What the API server and the kubelet accept in names and values copied into children. */
  'lib/values.ts': { tests: ['test/values.test.ts', 'test/collisions.test.ts'], target: 85 },
  // Backups (issues 29.6, 30.2, 30.3): what a backup or restore may reach, what pruning may delete, the one-off record.
  'hooks/etcdcommon/tenancy.ts': {
    tests: ['test/etcd-tenancy-rules.test.ts', 'test/etcd-backup-tenancy.test.ts', 'test/etcd-secret-names.test.ts'],
    target: 85,
  },
  'hooks/etcdbackup/lineage.ts': {
    tests: ['test/etcd-backup-lineage.test.ts', 'test/etcd-backup.test.ts'],
    target: 85,
  },
  'hooks/etcdbackup/backup.ts': {
    tests: [
      'test/etcd-backup-lineage.test.ts',
      'test/etcd-backup.test.ts',
      'test/etcdbackup-oneoff-same-path-race.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdbackup/sync.ts': {
    tests: [
      'test/etcd-backup-record.test.ts',
      'test/etcd-backup-tenancy.test.ts',
      'test/etcd-backup.test.ts',
      'test/etcd-restricted.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdbackup/restore.ts': {
    tests: [
      'test/etcd-backup-tenancy.test.ts',
      'test/etcd-safety.test.ts',
      'test/namespaces.test.ts',
      'test/etcd-restore-aws-text.test.ts',
      'test/etcd-secret-names.test.ts',
      'test/etcd-restore-recreated-same-second.test.ts',
    ],
    target: 85,
  },
  // The AWS SDK adapter of the S3 hook, against IAM and S3 as documented (quotas, short pages, throttling; issue 35).
  'hooks/s3/aws.ts': { tests: ['test/s3-aws-adapter.test.ts', 'test/deadlines.test.ts'], target: 80 },
};
