// The decision modules mutation testing guards (docs/mutation.md), each with the fast test files that guard it and
// its target score: 85% for the code that guards data and access, 70% elsewhere, 80% for the modules issue 35 added.
// scripts/mutation-changed.ts runs them; stryker.config.json (`npm run test:mutation`) must list every one of them and
// their test files (test/project/mutation-config.test.ts checks it).
/** The tests of the EtcdCluster plan, which builds the member pods too. */
const ETCD_PLAN_TESTS = [
  'test/etcdcluster/etcdcluster.test.ts',
  'test/etcdcluster/safety.test.ts',
  'test/etcdcluster/plan.test.ts',
  'test/etcdcluster/plan-additions.test.ts',
  'test/etcdcluster/plan-answers.test.ts',
  'test/etcdcluster/plan-etcd-silent.test.ts',
  'test/etcdcluster/plan-lost-members.test.ts',
  'test/etcdcluster/plan-member-reports.test.ts',
  'test/etcdcluster/plan-no-pods.test.ts',
  'test/etcdcluster/plan-restore.test.ts',
  'test/etcdcluster/plan-scale.test.ts',
  'test/etcdcluster/plan-upgrade.test.ts',
  'test/etcdcluster/plan-versions.test.ts',
];

/** The tests of the HTTP layer (lib/app.ts and its plugins). */
const HTTP_TESTS = [
  'test/lib/app.test.ts',
  'test/lib/request-confinement.test.ts',
  'test/lib/http.test.ts',
  'test/lib/etag.test.ts',
  'test/lib/security.test.ts',
  'test/lib/framework-on-doubt.test.ts',
];

/** The tests of the EtcdCluster decisions: plan.ts and each of its rule files under plan/ (mutated as modules). */
const ETCD_DECISION_TESTS = [
  ...ETCD_PLAN_TESTS,
  // A bootstrap whose starts keep failing stops (bootstraps.ts, plan/silent.ts restartBootstrap, plan/no-pods.ts).
  'test/etcdcluster/bootstrap-that-keeps-failing-stops.test.ts',
  // A learner votes in no quorum (plan/silent.ts quorumOf, learnerNames; plan/conditions.ts membersAfter).
  'test/etcdcluster/voter-lost-while-learner-joins-said-majority-lost.test.ts',
  // A start its node ended is not counted; a mirror's rewritten images are read as given (the bound holds).
  'test/etcdcluster/bootstrap-evicted-by-its-nodes-is-no-failed-start.test.ts',
  'test/etcdcluster/bootstrap-whose-images-admission-rewrites-is-still-bounded.test.ts',
  'test/operators/records-fed-back.test.ts',
  'test/etcdcluster/upgrade.test.ts',
  'test/etcdcluster/upgrade-last-member-fails.test.ts',
  'test/etcdcluster/majority-lost-without-storage.test.ts',
  'test/etcdcluster/restore-new-after-failed.test.ts',
  'test/etcdcluster/restarts.test.ts',
  // A member killed once is restarted in place, not made again on an edited spec.pod (plan/respec.ts).
  'test/etcdcluster/member-killed-once-after-spec-pod-edit-restarts-in-place.test.ts',
  // A size raised while restored members start is a scale after the restore (plan/restore-phases.ts restoredRun).
  'test/etcdcluster/restore-scaled-up-while-restoring-keeps-its-members.test.ts',
  // A restore past its deadline keeps members whose etcd runs; spec.paused holds a restore (plan/restore-phases.ts).
  'test/etcdcluster/restore-past-deadline-keeps-members-whose-etcd-runs.test.ts',
  'test/etcdcluster/restore-paused-while-restoring-waits.test.ts',
  // QuorumLost tells members lost for good apart; a new member's first pod is no restart (plan/members.ts).
  'test/etcdcluster/quorum-lost-says-no-storage-member-deleted-never-returns.test.ts',
  'test/etcdcluster/new-member-first-pod-on-its-claim-is-a-scale-up-not-a-restart.test.ts',
  'test/etcdcluster/restore-check.test.ts',
  'test/etcdcluster/restore-aws-text.test.ts',
  'test/etcdcluster/restore-source-edited-after-check.test.ts',
  'test/etcdcluster/restore-status-lost-past-no-return.test.ts',
  'test/etcdcluster/restore-during-failed-upgrade.test.ts',
  'test/etcdcluster/restore-pin-and-retry.test.ts',
  'test/etcdcluster/members-made-before-restart-in-place-no-learners.test.ts',
  'test/etcdcluster/failed-additions-stop.test.ts',
  'test/etcdcluster/scale-up-crashing-member-not-readded-forever.test.ts',
  'test/etcdcluster/restored-member-steps-take-current-image.test.ts',
  'test/etcdcluster/restored-member-operator-steps-rule.test.ts',
  'test/etcdcluster/pods-look-up-external-names-as-given.test.ts',
  // Until an upgrade soaked, pods made run the last good version; one member off it at a time; a roll back by spec.
  'test/etcdcluster/upgrade-soak-kept-when-a-member-pod-is-made-again.test.ts',
  'test/etcdcluster/upgrade-and-scale-up-in-one-change-keep-quorum.test.ts',
  'test/etcdcluster/restore-during-upgrade-soak-restores-on-last-good-version.test.ts',
  'test/etcdcluster/upgrade-new-version-in-soak-moves-no-second-member.test.ts',
  'test/etcdcluster/upgrade-rolled-back-by-spec-moves-hanging-member-back.test.ts',
  'test/etcdcluster/restore-one-at-a-time-rules.test.ts',
  'test/etcdcluster/restore-newer-refused-keeps-running-restore.test.ts',
  // A restored member's restore steps read by name (evidence.ts failedInitStep): a webhook's init container is none.
  'test/etcdcluster/restored-member-injected-init-container-is-no-restore-step.test.ts',
  // Member pods that cannot start on the spec.pod they were made from are made again with the spec's, only when
  // sound (plan/respec.ts); a bootstrap whose members' etcd cannot start says why (plan/silent.ts initFailingOf).
  'test/etcdcluster/majority-crash-looping-on-its-pod-spec-recovers-once-the-spec-is-fixed.test.ts',
  'test/etcdcluster/member-pod-spec-made-again-only-when-sound.test.ts',
  'test/etcdcluster/bootstrap-whose-members-etcd-cannot-start-says-why.test.ts',
  // A bootstrap member that cannot start on the spec.pod it was made from, changed since: a new start (plan/silent.ts).
  'test/etcdcluster/bootstrap-member-that-cannot-start-made-again-once-spec-pod-fixed.test.ts',
  // A failed upgrade's hold bound to spec.pod too; Upgrading said while a member is made again (plan/upgrade-hold.ts,
  // plan/members.ts restartingMembers).
  'test/etcdcluster/upgrade-member-crash-looping-on-its-pod-spec-goes-on-once-spec-pod-fixed.test.ts',
  // A moved member's crash loop that respec may end waits for it; one of long runs, or past the unhealthy limit, fails
  // the upgrade as before (plan/upgrade-hold.ts respecPending, plan/respec.ts shortCrashLoop).
  'test/etcdcluster/upgrade-waits-for-spec-pod-fix-only-on-short-failed-starts.test.ts',
  // Members made before the pod-spec record: named by MajorityCrashLooping, the fix by hand (plan/crash-loops.ts).
  'test/etcdcluster/members-made-before-the-pod-spec-record-crash-looping-told-to-delete-by-hand.test.ts',
  // plan/respec.ts's functions called directly (under a second): what a pod that cannot start is, read by type.
  'test/etcdcluster/member-pod-that-cannot-start-read-as-its-statuses-say.test.ts',
  // A CORRUPT alarm: its members count for quorum, said DataCorrupt naming its member (plan/answered.ts, members.ts).
  'test/etcdcluster/cluster-under-corrupt-alarm-said-data-corrupt.test.ts',
  // Under an alarm the members keep their pods: made again on their claims, no membership change (members.ts).
  'test/etcdcluster/member-pods-made-again-on-their-claims-under-an-alarm.test.ts',
  // spec.paused under an alarm: no pod made again, the alarms held said (members.ts underAlarm).
  'test/etcdcluster/paused-cluster-disarms-no-alarm.test.ts',
  // A member whose etcd never ran (check-dns waiting) replaced past the limit only while a quorum holds without it.
  'test/etcdcluster/member-waiting-for-its-dns-name-replaced-after-the-limit-only-while-quorum-holds.test.ts',
  // DataCorrupt's member named last kept while the alarm list fails (members.ts namedLast).
  'test/etcdcluster/data-corrupt-status-settles-while-alarm-list-answers-some-calls.test.ts',
  // A failed upgrade's hold read back from the member pods once the status is lost (plan/upgrade-hold.ts upgradeFailure).
  'test/etcdcluster/upgrade-failed-hold-survives-status-loss.test.ts',
  // plan/upgrade-hold.ts respecPending called directly: the upgrade waits only where respec makes the member again.
  'test/etcdcluster/upgrade-waits-for-respec-only-where-respec-makes-the-member-again.test.ts',
  // plan/upgrade-hold.ts: the member pods on the target image, the Ready pods (serving) and the voting members named
  // exactly in what it says.
  'test/etcdcluster/upgrade-hold-names-exactly-the-members-it-reads.test.ts',
];

/** plan.ts (decide) and its rules under hooks/etcdcluster/plan/: one view, named rules (the header of plan.ts). */
const ETCD_PLAN_FILES = [
  'hooks/etcdcluster/plan.ts',
  'hooks/etcdcluster/plan/answered.ts',
  'hooks/etcdcluster/plan/conditions.ts',
  'hooks/etcdcluster/plan/evidence.ts',
  'hooks/etcdcluster/plan/member-pods.ts',
  'hooks/etcdcluster/plan/members.ts',
  'hooks/etcdcluster/plan/no-pods.ts',
  'hooks/etcdcluster/plan/restore-check.ts',
  'hooks/etcdcluster/plan/restore-phases.ts',
  'hooks/etcdcluster/plan/respec.ts',
  'hooks/etcdcluster/plan/restore-queue.ts',
  'hooks/etcdcluster/plan/silent.ts',
  'hooks/etcdcluster/plan/types.ts',
  'hooks/etcdcluster/plan/upgrade-hold.ts',
  'hooks/etcdcluster/plan/versions.ts',
  'hooks/etcdcluster/plan/view.ts',
];

/** Each mutated module: the fast test files that guard it, and its target score. */
export const MODULES: Record<string, { tests: string[]; target: number }> = {
  'lib/auth.ts': { tests: ['test/lib/security.test.ts', 'test/lib/hostile-requests.test.ts'], target: 85 },
  // The HTTP layer: the app and its plugins (the guard, instrumentation, the hook routes, the route list), and the
  // answer (the deadline and the ETag, whose target was 85 within lib/app.ts already).
  ...Object.fromEntries(
    ['lib/app.ts', 'lib/instrument.ts', 'lib/routes.ts'].map((file) => [file, { tests: HTTP_TESTS, target: 70 }]),
  ),
  // The guard runs on every request, so every HTTP test file covers it: only the files that test its decisions (the
  // callers' checks, the refusals' shape, log lines and rate, malformed HTTP) are its list, the slowest 37 s a run.
  'lib/guard.ts': {
    tests: [
      'test/lib/app.test.ts',
      'test/lib/security.test.ts',
      'test/lib/http.test.ts',
      'test/lib/refusal-logged-by-path-alone-within-its-rate.test.ts',
      'test/lib/request-for-no-route-closes-its-connection.test.ts',
    ],
    target: 70,
  },
  // The hook routes also take a turn of the body budget before a body is read, and tell an oversized request's object.
  'lib/hook-routes.ts': {
    tests: [
      ...HTTP_TESTS,
      'test/lib/body-budget.test.ts',
      'test/lib/request-over-body-limit-told-on-the-object-it-is-about.test.ts',
      // A caller gone while its body is parsed in pieces: its hook not run, its turn given back (about 2 s a run).
      'test/lib/hook-not-run-for-a-caller-gone-while-its-body-is-parsed.test.ts',
      // A decorator's finalize over the body limit answered from the start of its body (finalizeOversized).
      'test/lib/pods-policy-finalize-over-the-body-limit-answered-by-its-bound.test.ts',
    ],
    target: 70,
  },
  'lib/answer.ts': { tests: HTTP_TESTS, target: 85 },
  'lib/config.ts': { tests: ['test/lib/config.test.ts', 'test/lib/security.test.ts'], target: 70 },
  'lib/json.ts': {
    tests: [
      'test/lib/lib.test.ts',
      'test/lib/http.test.ts',
      'test/lib/request-confinement.test.ts',
      // A large text parsed a piece at a time (parseInPieces): JSON.parse's value, its refusals, the pieces' sizes.
      'test/lib/large-json-parsed-in-pieces.test.ts',
      'test/lib/kube-large-answer-parsed-in-pieces.test.ts',
      // A request parsed with its managedFields replaced: the cut and parse's value, or SLOW.
      'test/lib/managed-fields-replaced-parse-equals-cut-parse.test.ts',
    ],
    target: 70,
  },
  'lib/objects.ts': {
    tests: [
      'test/lib/lib.test.ts',
      'test/lib/app.test.ts',
      'test/lib/request-confinement.test.ts',
      'test/lib/framework-on-doubt.test.ts',
      'test/lib/namespaces.test.ts',
      'test/lib/hostile-requests.test.ts',
      'test/memcached/memcached.test.ts',
      'test/mysqlcluster/mysqlcluster.test.ts',
      'test/podset/podset.test.ts',
      'test/operators/convergence.test.ts',
      'test/operators/hook-versions.test.ts',
      'test/etcdcluster/tls.test.ts',
    ],
    target: 70,
  },
  ...Object.fromEntries(ETCD_PLAN_FILES.map((file) => [file, { tests: ETCD_DECISION_TESTS, target: 85 }])),
  // Additions that keep failing stop (issue 30): what counts, the record and where it is read from.
  // The record of a bootstrap's failed starts: its bound, its fingerprint, read back from status or pods (issue 30).
  'hooks/etcdcluster/bootstraps.ts': {
    tests: [
      // Its functions called directly (a second a run): the fingerprint, the record read by type, the messages.
      'test/etcdcluster/bootstrap-record-read-written-and-told-as-it-must-be.test.ts',
      // Its starts whose pods their nodes ended, called directly: `ended` read by type, counted, the wait after it.
      'test/etcdcluster/bootstrap-ended-starts-read-counted-and-waited-as-recorded.test.ts',
      'test/etcdcluster/bootstrap-that-keeps-failing-stops.test.ts',
      'test/etcdcluster/plan-etcd-silent.test.ts',
      // Starts whose pods their nodes ended (withEndedStart, nextStartAt), and images a webhook rewrote.
      'test/etcdcluster/bootstrap-evicted-by-its-nodes-is-no-failed-start.test.ts',
      'test/etcdcluster/bootstrap-whose-images-admission-rewrites-is-still-bounded.test.ts',
      // A start evicted for its own limits: said with the member and the kubelet's message (howStartFailed).
      'test/etcdcluster/bootstrap-evicted-for-its-own-limits-is-bounded.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcluster/additions.ts': {
    tests: [
      'test/etcdcluster/additions-record-of-failed-members-read-by-type.test.ts',
      // The annotation's name and the spec's fingerprint as later versions read them; the etcd container's exit.
      'test/etcdcluster/additions-record-read-back-as-written-and-from-any-pod.test.ts',
      'test/etcdcluster/failed-additions-stop.test.ts',
      'test/etcdcluster/scale-up-crashing-member-not-readded-forever.test.ts',
      // A new member evicted for its own limits: a failed addition, said with the kubelet's message (howItFailed).
      'test/etcdcluster/addition-evicted-for-its-own-limits-is-a-failed-addition.test.ts',
    ],
    target: 85,
  },
  // Whose etcd a cluster reads and acts on (issue 29.1), and how many dials a sync makes (29.4).
  'hooks/etcdcluster/identity.ts': {
    tests: [
      'test/etcdcommon/identity.test.ts',
      'test/etcdcommon/dials.test.ts',
      // namedSpec: the names members are made with, and the names a running cluster keeps.
      'test/etcdcluster/member-urls-fully-qualified.test.ts',
      'test/etcdcluster/member-names-kept-by-running-clusters.test.ts',
      'test/etcdcluster/pod-clusterdomain-coreos-spelling.test.ts',
      'test/etcdcluster/tenancy-rules.test.ts',
      'test/etcdcluster/member-names-read-by-type.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcluster/observe.ts': {
    tests: [
      // Its functions called directly against a stub etcd client (fast: listed first), then the member window's.
      'test/etcdcluster/sync-reads-its-own-members-health-and-claims.test.ts',
      'test/etcdcluster/member-window.test.ts',
      'test/etcdcommon/identity.test.ts',
      'test/etcdcommon/dials.test.ts',
      'test/etcdcluster/etcdcluster.test.ts',
      'test/etcdcluster/tls.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcommon/identity.ts': { tests: ['test/etcdcommon/identity.test.ts'], target: 85 },
  'hooks/etcdcommon/etcd.ts': {
    tests: [
      'test/etcdcommon/client.test.ts',
      'test/etcdcluster/limits.test.ts',
      'test/etcdcommon/identity.test.ts',
      'test/etcdcommon/dials.test.ts',
      'test/lib/deadlines.test.ts',
      // An answer that is no etcd answer at the HTTP level (1xx, too many pieces): the member's Invalid.
      'test/etcdcommon/member-answer-not-http-refused-as-invalid.test.ts',
      // etcd's Maintenance Alarm API: alarms read by type, a disarm naming member and kind.
      'test/etcdcommon/client-alarms-listed-and-disarmed.test.ts',
      // A namespace's syncs dialling at once over the Deployment's replicas (tenantMaxSyncs, METAOPS_REPLICAS).
      'test/lib/namespace-syncs-waiting-at-once-within-its-share-over-the-deployments-replicas.test.ts',
      // A namespace's budget of calls over time (Shares.budget, budgetWait, the calls spent as they are made).
      'test/etcdcluster/namespace-budget-of-etcd-calls.test.ts',
    ],
    target: 85,
  },
  // The backend quota against the data (issue 30 attack): no member pod made with a quota under the data the
  // members report; a quota not in plain decimal bytes refused; the restore's check reads it the same way.
  'hooks/etcdcluster/quota.ts': {
    tests: [
      'test/etcdcluster/member-pods-held-while-quota-under-data.test.ts',
      'test/etcdcluster/majority-lost-comes-back-on-its-claims-whatever-the-quota.test.ts',
      'test/etcdcluster/quota-not-in-plain-decimal-refused-before-members-dropped.test.ts',
      'test/etcdcluster/restore-check-refuses-snapshot-over-members-quota.test.ts',
    ],
    target: 85,
  },
  // Alarms kept under a member ID that is no member (a restored snapshot's) disarmed; a member's own alarm stays.
  'hooks/etcdcluster/alarms.ts': {
    tests: [
      // Its functions called directly against a stub client (under a second): who is asked, what is disarmed, the
      // failures told, the health asked again and replaced only by the same member's answer, the event's words.
      'test/etcdcluster/alarms-of-ids-no-member-has-disarmed-through-the-members-that-answer.test.ts',
      'test/etcdcluster/alarm-of-no-member-disarmed.test.ts',
      // Paused: nothing disarmed, the alarms held kept for the status (disarmStrangers' paused).
      'test/etcdcluster/paused-cluster-disarms-no-alarm.test.ts',
    ],
    target: 85,
  },
  // A failed upgrade stops (30.4), members restart in place (30.1), a restore checks before it acts (30.5).
  'hooks/etcdcluster/upgrade.ts': {
    tests: [
      'test/etcdcluster/upgrade.test.ts',
      'test/etcdcluster/upgrade-last-member-fails.test.ts',
      'test/etcdcluster/upgrade-clock-stale-status.test.ts',
      // The failure that must last (UPGRADE_FAIL_SECONDS), at its bounds; the two it lets through.
      'test/etcdcluster/upgrade-failure-must-last.test.ts',
      'test/etcdcluster/upgrade-member-killed-once-then-serving-not-failed.test.ts',
      'test/etcdcluster/upgrade-image-pull-retried-then-serving-not-failed.test.ts',
      // The soak (served steadily before the next member moves; the failure clock from the first exit seen).
      'test/etcdcluster/upgrade-crash-looping-member-serving-between-exits-keeps-quorum.test.ts',
      'test/etcdcluster/upgrade-failure-clock-recorded-ahead-read-no-later-than-now.test.ts',
      'test/etcdcluster/upgrade-served-member-killed-once-not-failed.test.ts',
      'test/etcdcluster/upgrade-member-slow-pull-then-killed-once-not-failed.test.ts',
      'test/etcdcluster/upgrade-new-version-while-failure-timed-not-failed-at-once.test.ts',
      // A long soak: one missed health check is no failure; exits the kubelet restarts at once are.
      'test/etcdcluster/upgrade-long-soak-one-missed-health-check-not-failed.test.ts',
      'test/etcdcluster/upgrade-long-soak-exits-the-kubelet-restarts-at-once-fail-it.test.ts',
      // A member moved evicted for its own limits: failed at once, said so; not one of the nodes' evictions.
      'test/etcdcluster/upgrade-member-evicted-for-its-own-limits-fails-the-upgrade.test.ts',
      'test/etcdcluster/upgrade-evictions-counted-once-and-bound-to-the-image.test.ts',
      // A moved member's crash loop a change of spec.pod may end waits for respec, bounded (respecPending).
      'test/etcdcluster/upgrade-waits-for-spec-pod-fix-only-on-short-failed-starts.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcluster/pods.ts': {
    tests: [
      ...ETCD_PLAN_TESTS,
      'test/etcdcluster/upgrade.test.ts',
      'test/etcdcluster/restarts.test.ts',
      'test/etcdcluster/restore-aws-text.test.ts',
      // The unhealthy clock's floor (recordedClock), read by the member's clock and the upgrade's.
      'test/etcdcluster/member-clock-stale-status.test.ts',
      'test/etcdcluster/upgrade-clock-stale-status.test.ts',
      // The eviction read (evictedForOwnLimits): the pod's own failure, or its node's (etcdExited, endedByNode).
      'test/etcdcluster/addition-evicted-for-its-own-limits-is-a-failed-addition.test.ts',
      'test/etcdcluster/addition-whose-pod-its-node-rejected-is-not-a-failed-addition.test.ts',
      'test/etcdcluster/upgrade-member-evicted-for-its-own-limits-fails-the-upgrade.test.ts',
      'test/etcdcluster/upgrade-evicted-member-not-failed-upgrade.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcluster/restore.ts': {
    tests: [
      // Its functions called directly (no cluster loop): the etcd the check starts, the verdict, the steps' failures.
      'test/etcdcluster/restore-check-starts-etcd-as-restored-members-before-drop.test.ts',
      'test/etcdcluster/restore-check-etcd-exit-read-by-type-and-bounded.test.ts',
      'test/etcdcluster/restore-check-verdict-on-any-valid-status.test.ts',
      'test/etcdcluster/restore-check-verdict-on-snapshot-whatever-its-path-says.test.ts',
      'test/etcdcluster/restore-check-version-unreadable-pins-copy-or-refuses.test.ts',
      'test/etcdcluster/restore-check-that-proves-nothing-refused-at-its-deadline-says-why.test.ts',
      'test/etcdcluster/restore-check-runs-what-restored-members-run-from-busybox-image.test.ts',
      'test/etcdcluster/restore-check-pod-runs-tenant-images-without-service-account-token.test.ts',
      'test/etcdcluster/restore-check-network-policy-rules.test.ts',
      'test/etcdcluster/restore-step-transient-judged-by-error-not-path.test.ts',
      'test/etcdcluster/restore-check.test.ts',
      'test/etcdcluster/restore-check-spares-running-fetch.test.ts',
      'test/etcdcluster/restore-aws-text.test.ts',
      'test/etcdcluster/restore-pin-and-retry.test.ts',
      'test/etcdcluster/restore-check-room-and-images.test.ts',
      'test/etcdcluster/restore-check-snapshot-fits-member-claims.test.ts',
      'test/etcdcluster/restore-check-starts-members-etcd-image.test.ts',
      'test/etcdcluster/pods-look-up-external-names-as-given.test.ts',
      // Containers a mutating webhook adds: the check pod's own read by name (sameCheck, foreignStepEnded), and a
      // restored member's restore steps (runningStep).
      'test/etcdcluster/restore-check-pod-with-injected-containers-is-read.test.ts',
      'test/etcdcluster/restore-check-pod-ended-by-injected-init-container.test.ts',
      'test/etcdcluster/restored-member-injected-init-container-is-no-restore-step.test.ts',
      // The members' env sources the check resolves (envSources, its digest in sameCheck).
      'test/etcdcluster/restore-check-pod-resolves-members-env-sources.test.ts',
      // Its images as a registry mirror's webhook rewrote them (sameCheck, atTagGiven).
      'test/etcdcluster/restore-check-pod-on-a-registry-mirror-is-read.test.ts',
      // A snapshot over the restored members' backend quota refused (restoredQuota, quotaProblem).
      'test/etcdcluster/restore-check-refuses-snapshot-over-members-quota.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcommon/snapshot.ts': {
    tests: [
      'test/etcdcluster/restore-check.test.ts',
      'test/etcdcluster/snapshot-pin.test.ts',
      // A periodic snapshot the check cannot keep is refused (prunable, unpinnedPrunable).
      'test/etcdcluster/restore-check-refuses-prunable-unpinned.test.ts',
      // The trailer of a snapshot stream read by a backup (SnapshotTrailer): a stream cut short is not written.
      'test/etcdbackup/snapshot-cut-short-not-written-nor-pruned-over.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdcluster/members.ts': {
    tests: [
      ...ETCD_PLAN_TESTS,
      'test/etcdcluster/restored-member-secret-optional.test.ts',
      'test/etcdcluster/members.test.ts',
      'test/etcdcluster/services-select-own-pods.test.ts',
      'test/lib/framework-on-doubt.test.ts',
      'test/etcdcluster/restore-pin-and-retry.test.ts',
      'test/etcdcluster/pods-look-up-external-names-as-given.test.ts',
      // The etcd variables spec.pod.etcdEnv may set (TUNING_VARIABLES).
      'test/etcdcluster/member-env-takes-only-etcd-tuning.test.ts',
      // The etcdEnv variables refused (shadowedVariables): the set, and a member made from a spec naming one.
      'test/etcdcluster/member-env-variables-refused-are-the-flags-its-command-sets.test.ts',
      'test/etcdcluster/member-env-shadows-no-flag-of-its-command.test.ts',
      // The image given, read through a registry mirror's rewrite (memberImage, MEMBER_IMAGE).
      'test/etcdcluster/members-on-a-registry-mirror-are-moved.test.ts',
    ],
    target: 70,
  },
  'hooks/s3/policy.ts': {
    tests: [
      'test/s3/policy.test.ts',
      // Tag keys of 1 to 128 and values up to 256 characters taken, both ends of each bound.
      'test/s3/bucket-tags-taken-up-to-the-lengths-aws-allows.test.ts',
      'test/s3/ownership.test.ts',
      'test/s3/kms-key-withdrawn-nothing-else-touched.test.ts',
      'test/s3/kms-grant-of-a-key-id-no-longer-accepted-is-withdrawn.test.ts',
      'test/s3/refused-spec-keeps-no-grant-the-rules-would-not-give.test.ts',
    ],
    target: 85,
  },
  'lib/aws-text.ts': { tests: ['test/s3/policy.test.ts', 'test/etcdbackup/etcdbackup.test.ts'], target: 85 },
  'hooks/s3/sync.ts': {
    tests: [
      'test/s3/policy.test.ts',
      'test/s3/ownership.test.ts',
      'test/operators/records-fed-back.test.ts',
      'test/s3/crash.test.ts',
      'test/operators/collisions.test.ts',
      'test/operators/field-cases.test.ts',
      'test/s3/bucket-claim.test.ts',
      'test/s3/refusal-names-no-owner.test.ts',
      'test/s3/secret-name-held-while-holder-exists.test.ts',
      'test/s3/finalize-waiting-on-its-tenant-backs-off.test.ts',
      'test/s3/finalize-waiting-on-its-tenant-costs-what-rest-does.test.ts',
      'test/s3/buckets-of-another-account-never-taken.test.ts',
      // A rename never empties the bucket it leaves (forceDelete is the deletion's); a revert takes it back.
      'test/s3/bucket-rename-reverted-keeps-its-objects.test.ts',
      // A call AWS applied and answered with an error: the next syncs (and finalizes) converge.
      'test/s3/call-applied-but-answered-an-error-converges.test.ts',
      // A namespace's share (share.ts): its syncs that call AWS at once, its calls a period; old buckets' backoff.
      'test/s3/namespace-syncs-waiting-on-silent-aws-hold-at-most-its-share.test.ts',
      'test/s3/namespace-aws-calls-bounded-whatever-its-resource-count.test.ts',
      'test/s3/renamed-buckets-waiting-on-their-tenant-back-off.test.ts',
      'test/s3/namespace-share-of-aws-calls.test.ts',
      // The helper share.ts keeps its calls under way and budget in (lib/namespace-calls.ts).
      'test/lib/namespace-calls.test.ts',
      // A call waiting on AWS gives its turn of the body budget way to another namespace (givingWay).
      'test/s3/sync-waiting-on-aws-gives-way-to-another-namespace.test.ts',
      'test/s3/sync-giving-way-keeps-the-access-key-it-made.test.ts',
      // A refused spec revokes its grant on a bucket another account took since (narrowGrant), and says so.
      'test/s3/refused-spec-revokes-its-grant-on-a-bucket-of-another-account.test.ts',
      // A resource that never answered its Secret claims the name whatever AWS answers (claimOf).
      'test/s3/chosen-secret-name-claimed-before-aws-answers.test.ts',
      // A later resource holding the Secret a parent made before it is held for yields it (yieldedSecret).
      'test/operators/s3-made-with-a-mysqlcluster-yields-the-secret-the-first-wants.test.ts',
      // A KMS withdrawal passes the budget only when the status records something made, within one period's debt.
      'test/s3/namespace-aws-calls-bounded-whatever-kms-key-its-resources-name.test.ts',
      // A new bucket refused its place or its name: the resource's user, holding nothing, deleted (dropIdleUser).
      'test/s3/racing-resources-keep-no-iam-user-past-the-bucket-place.test.ts',
    ],
    target: 85,
  },
  'hooks/s3/plan.ts': {
    tests: ['test/s3/plan.test.ts', 'test/s3/ownership.test.ts', 'test/s3/policy.test.ts'],
    target: 85,
  },
  'hooks/podbuggertool/match.ts': {
    tests: [
      'test/podbuggertool/match.test.ts',
      'test/podbuggertool/podbuggertool.test.ts',
      'test/podbuggertool/status.test.ts',
      'test/podbuggertool/container-name-unique.test.ts',
      // debug-<tool> kept as it is up to 63 characters, both ends of the bound.
      'test/podbuggertool/debug-container-named-after-its-tool-up-to-63-characters.test.ts',
      'test/podbuggertool/sidecar-target.test.ts',
      'test/podbuggertool/refusal-backoff.test.ts',
      'test/podbuggertool/slow-api-server-backs-off.test.ts',
      'test/podbuggertool/stored-container-compare.test.ts',
      'test/podbuggertool/container-with-short-image-name-not-outdated.test.ts',
      'test/podbuggertool/security-context-restricted-by-admission-same-loosened-outdated.test.ts',
    ],
    target: 85,
  },
  'hooks/podbuggertool/sync.ts': {
    tests: [
      'test/podbuggertool/status.test.ts',
      'test/podbuggertool/podbuggertool.test.ts',
      'test/podbuggertool/author.test.ts',
      'test/podbuggertool/revocation.test.ts',
    ],
    target: 85,
  },
  'hooks/podbuggertool/inject.ts': {
    tests: [
      'test/podbuggertool/podbuggertool.test.ts',
      'test/podbuggertool/author.test.ts',
      'test/lib/framework-on-doubt.test.ts',
      'test/podbuggertool/revocation.test.ts',
      'test/podbuggertool/refusal-backoff.test.ts',
      'test/podbuggertool/retry-survives-metacontroller-restart.test.ts',
      'test/podbuggertool/slow-api-server-backs-off.test.ts',
      'test/podbuggertool/many-failing-tools-back-off.test.ts',
    ],
    target: 85,
  },
  'hooks/podbuggertool/probe.ts': {
    tests: [
      'test/podbuggertool/author-allowed-by-name-beyond-first-pods.test.ts',
      'test/podbuggertool/probe-memory-bounded-per-namespace.test.ts',
      'test/podbuggertool/author-allowed-on-some-pods-status.test.ts',
    ],
    target: 80,
  },
  'hooks/podbuggertool/author.ts': {
    tests: [
      'test/podbuggertool/author.test.ts',
      'test/podbuggertool/status.test.ts',
      'test/podbuggertool/podbuggertool.test.ts',
      'test/podbuggertool/revocation.test.ts',
    ],
    target: 85,
  },
  'hooks/mysqlcluster/sync.ts': {
    tests: [
      'test/mysqlcluster/primary-behind-says-whether-replicas-serve-reads.test.ts',
      'test/mysqlcluster/mysqlcluster.test.ts',
      'test/operators/convergence.test.ts',
      'test/mysqlcluster/secrets.test.ts',
      'test/operators/records-fed-back.test.ts',
      'test/operators/workload-status.test.ts',
      'test/operators/collisions.test.ts',
      'test/lib/values.test.ts',
      'test/operators/field-cases.test.ts',
      'test/operators/names-upgrade.test.ts',
      'test/mysqlcluster/primary-peers.test.ts',
      'test/mysqlcluster/new-cluster-secret-never-created.test.ts',
      'test/mysqlcluster/members-owned-by-statefulset.test.ts',
      'test/mysqlcluster/claim-class-picks-no-premade-volume.test.ts',
      'test/mysqlcluster/downgrade-refused-while-members-wait-on-pull-of-version-they-ran.test.ts',
      'test/mysqlcluster/version-no-member-ran-is-no-floor-once-pods-gone.test.ts',
      'test/mysqlcluster/version-record-keeps-what-ran-until-newer-runs.test.ts',
      'test/mysqlcluster/downgrade-refused-after-typo-every-member-waits-on.test.ts',
      'test/mysqlcluster/downgrade-floor-from-status-when-no-member-observed.test.ts',
      'test/mysqlcluster/downgrade-refused-while-statefulset-gone.test.ts',
      'test/mysqlcluster/version-typo-revert.test.ts',
      'test/mysqlcluster/floating-tag-downgrade.test.ts',
      'test/mysqlcluster/version-recorded-on-any-sign-the-server-started.test.ts',
      // Held, a spec change the kept StatefulSet is never given says the hold; OrderedReady blames no creation.
      'test/mysqlcluster/held-cluster-scaled-up-does-not-say-its-statefulset-is-given-the-new-spec.test.ts',
      'test/mysqlcluster/ordered-scale-up-behind-a-member-stuck-terminating-is-not-blamed-on-creation.test.ts',
      // spec.progressDeadlineSeconds is the deadline, and the resync just past a shorter one (deadlineOptions).
      'test/lib/progress-deadline-seconds-of-memcached-and-mysqlcluster.test.ts',
      // A version tag padded with zeros (8.00.36, 8.04) is refused before any member rolls onto it.
      'test/mysqlcluster/version-with-zero-padded-parts-refused.test.ts',
      // A cluster waiting on a StorageClass not seen (new, or scaling up) tells a Warning once.
      'test/mysqlcluster/storage-class-never-seen-told-as-a-warning-event.test.ts',
      // status.selector (an HPA's) selects on the instance label once every member carries it.
      'test/mysqlcluster/scale-selector-selects-only-own-pods.test.ts',
      // An unmarked claim of ordinal `replicas` beside an earlier metaops' StatefulSet is not taken (volumeOurs).
      'test/mysqlcluster/unmarked-claim-past-the-statefulsets-replicas-not-taken.test.ts',
    ],
    target: 85,
  },
  'hooks/podset/sync.ts': {
    tests: [
      'test/podset/podset.test.ts',
      'test/podset/rollout.test.ts',
      'test/operators/collisions.test.ts',
      'test/lib/values.test.ts',
      'test/operators/convergence.test.ts',
      'test/operators/field-cases.test.ts',
      'test/operators/names-upgrade.test.ts',
      'test/podset/pod-name-taken-seen-past-ask-all-bytes.test.ts',
      'test/podset/sync-request-bound-counts-what-comes-back.test.ts',
      'test/podset/sync-request-within-body-limit-for-every-accepted-command.test.ts',
      'test/podset/sync-request-within-body-limit-with-injected-sidecars.test.ts',
      'test/podset/rollout-pod-proves-template-by-staying-ready.test.ts',
      // Made together with an EtcdCluster made first, it yields the pod names that one wants when it never ran (served).
      'test/operators/parents-made-together-every-pair-of-kinds-the-first-works.test.ts',
      // Held on some pod names, it makes the others and says which (served, with lib/ownership.ts makesText).
      'test/operators/a-parent-held-on-some-pod-names-says-which-pods-it-makes.test.ts',
      // One whose pod ran keeps its pods; one none of whose pods ran releases them (served).
      'test/operators/a-parent-made-second-that-served-releases-nothing.test.ts',
      // Its pods' NetworkPolicy and NetworkPolicyCreated (policyConditions, kept).
      'test/podset/pods-network-policy.test.ts',
      // complementPolicies called directly: made as the setting and the namespace's governance say.
      'test/operators/complement-egress-policies-of-podset-and-memcached-made-as-the-setting-and-governance-say.test.ts',
      // Where the namespace's egress policies select some of its pods: the complement policies answered, kept and said,
      // the doubt said, admins' and orphaned policies of such names (complementPolicies, kept, policyConditions).
      'test/lib/egress-policies-select-the-pods-no-namespace-egress-policy-selects.test.ts',
      'test/lib/egress-complement-policy-names-of-the-namespace-are-not-metaops-own.test.ts',
      'test/operators/namespace-network-policies-are-never-widened.test.ts',
      'test/operators/pods-no-namespace-egress-policy-selects-keep-the-metadata-service-out.test.ts',
      'test/operators/orphaned-metaops-policies-do-not-count-as-the-namespaces.test.ts',
    ],
    target: 70,
  },
  'hooks/podset/rollout.ts': {
    tests: [
      // A pod on the new template proves it by staying Ready for minReadySeconds (liveMember, planRollout).
      'test/podset/rollout-pod-proves-template-by-staying-ready.test.ts',
      'test/podset/rollout.test.ts',
      'test/podset/podset.test.ts',
      'test/podset/rollout-stops-on-a-command-that-crashes-after-it-starts.test.ts',
      // The node's clock read against the pod's creation (ahead, behind).
      'test/podset/rollout-pod-not-proven-before-it-was-made.test.ts',
      'test/podset/rollout-wait-ends-whatever-the-node-clock-says.test.ts',
      // A restart after a long run, or of a container the PodSet did not make, holds no rollout (crashedRun).
      'test/podset/rollout-goes-on-past-a-new-pod-restarted-after-a-long-run.test.ts',
      'test/podset/rollout-not-held-by-a-restart-of-a-sidecar.test.ts',
    ],
    target: 70,
  },
  'hooks/memcached/sync.ts': {
    tests: [
      'test/memcached/memcached.test.ts',
      'test/operators/workload-status.test.ts',
      'test/operators/collisions.test.ts',
      'test/lib/values.test.ts',
      'test/operators/field-cases.test.ts',
      'test/operators/names-upgrade.test.ts',
      'test/memcached/held-memcached-lists-no-pod-of-the-deployment-that-holds-its-name.test.ts',
      // currentNames: the one Service name it serves under, as a parent of another kind made after it judges it.
      'test/etcdcluster/peer-service-not-kept-by-a-memcached-that-never-makes-it.test.ts',
      'test/etcdcluster/peer-service-kept-by-a-memcached-from-before-the-suffix.test.ts',
      // Its pods' NetworkPolicy and NetworkPolicyCreated (policyCondition, kept).
      'test/memcached/pods-network-policy.test.ts',
      // complementPolicies called directly: made as the setting and the namespace's governance say.
      'test/operators/complement-egress-policies-of-podset-and-memcached-made-as-the-setting-and-governance-say.test.ts',
      // Where the namespace's egress policies select some of its pods: the complement policies answered, kept and said,
      // the doubt said, admins' and orphaned policies of such names (complementPolicies, kept, policyCondition).
      'test/lib/egress-policies-select-the-pods-no-namespace-egress-policy-selects.test.ts',
      'test/lib/egress-complement-policy-names-of-the-namespace-are-not-metaops-own.test.ts',
      'test/operators/namespace-network-policies-are-never-widened.test.ts',
      'test/operators/orphaned-metaops-policies-do-not-count-as-the-namespaces.test.ts',
      // Too many pods to list: judged on its pod template; its request bound counts the namespace's policies.
      'test/memcached/too-large-to-list-pods-judged-on-its-pod-template.test.ts',
      // At the largest size whose pods are listed, mid-rollout, two injectors: each sync request within the body limit.
      'test/memcached/sync-request-within-body-limit-with-injected-pods-at-the-cut.test.ts',
      // podsAtOnce counted by hand from the Deployment's default surge, not by itself.
      'test/memcached/pods-at-once-in-a-rollout-are-replicas-surge-and-as-many-terminating.test.ts',
      // Held, a spec change the kept Deployment is never given says the hold, not Complete (withheld).
      'test/memcached/held-memcached-with-a-changed-spec-is-not-complete.test.ts',
      // Made together with an EtcdCluster made first, it yields the shared Service when it never served (served).
      'test/operators/a-memcached-made-with-an-etcdcluster-yields-the-service-the-first-wants.test.ts',
      'test/operators/parents-made-together-every-pair-of-kinds-the-first-works.test.ts',
      // One that served (a Ready pod: its Deployment's counts, its own pods) keeps its Service (served).
      'test/operators/a-parent-made-second-that-served-releases-nothing.test.ts',
      // spec.progressDeadlineSeconds is the deadline (deadlineSeconds).
      'test/lib/progress-deadline-seconds-of-memcached-and-mysqlcluster.test.ts',
      // status.selector (an HPA's) selects on the instance label once every pod carries it.
      'test/memcached/scale-selector-selects-only-own-pods.test.ts',
      // Refused (kept): the complement policies kept in place of <name>-memcached, the handover both ways, the setting off.
      'test/memcached/refused-memcached-beside-a-namespace-egress-policy-keeps-its-complement-policies.test.ts',
      // Running: NetworkPolicyCreated while the complement is not observed, 60 s on, the setting off, the doubt.
      'test/memcached/memcached-egress-policies-said-in-network-policy-created.test.ts',
    ],
    target: 70,
  },
  /** Child names another owner holds: what a parent never takes or serves. */
  'lib/ownership.ts': {
    tests: [
      // What a later parent says beside a first it holds nothing of (keepsNote).
      'test/operators/a-later-parent-holding-nothing-says-the-first-carries-on.test.ts',
      'test/operators/a-parent-held-on-some-pod-names-says-which-pods-it-makes.test.ts',
      'test/operators/collisions.test.ts',
      'test/operators/field-cases.test.ts',
      'test/lib/ownership-held-records.test.ts',
      'test/s3/secret-name-held-while-holder-exists.test.ts',
      // A name the later of two parents made together released goes to the first (releasedTo).
      'test/lib/free-name-released-to-the-first.test.ts',
      'test/operators/names-a-later-parent-released-go-to-the-first.test.ts',
      // Every pair of kinds whose Service or pod names meet, made together: the first works (laterSide, firstSide).
      'test/operators/parents-made-together-every-pair-of-kinds-the-first-works.test.ts',
      // A free name a parent made before makes is kept from a later one, records or not; a held parent keeps none
      // (keptByEarlier, heldByNames).
      'test/lib/free-name-kept-for-a-parent-made-before.test.ts',
      'test/lib/names-held-between-three-parents-never-deadlock.test.ts',
      'test/lib/free-name-a-yielding-parent-waits-for-a-held-first.test.ts',
      // A later parent that yields records yieldsTo only for a first it owes something (laterSide's told).
      'test/lib/yields-to-only-a-first-owed-something.test.ts',
      // A holder that is the parent replaced (its kind and name, another uid) holds a name only while seen (replacedBy).
      'test/lib/replaced-parent-holds-its-names-only-while-seen.test.ts',
      // A workload kept as observed with a spec it was never given: Progressing says the hold (withheldIn).
      'test/memcached/held-memcached-with-a-changed-spec-is-not-complete.test.ts',
      'test/mysqlcluster/held-cluster-scaled-up-does-not-say-its-statefulset-is-given-the-new-spec.test.ts',
      // A held parent's Progressing says the hold (heldProgress, heldProgressing, holdText, heldPods), and its progress
      // deadline is judged on what it makes beside the held names.
      'test/operators/a-parent-held-before-it-creates-tells-created.test.ts',
      'test/lib/a-held-parent-judges-its-deadline-on-what-it-makes.test.ts',
      // The held members counted are its pods' names only; every held name told, "is" or "are", up to LISTED.
      'test/lib/held-parent-progress-counts-only-its-held-pods-and-names-every-held-name.test.ts',
    ],
    target: 85,
  },
  // The pods' NetworkPolicy kept from the instance metadata service while its pods stop (issue 35: measured whole).
  /** A deleted parent's finalize (EtcdCluster, PodSet, Memcached): the policy kept while its pods are observed. */
  'lib/policy-at-deletion.ts': {
    tests: [
      // Its functions called directly (about 1 s): the bound, the labels read by type, the words, the resync.
      'test/lib/policy-kept-at-deletion-bounded-and-said-as-read.test.ts',
      'test/lib/pods-keep-their-network-policy-until-they-are-gone-on-delete.test.ts',
      'test/lib/pods-policy-outlives-a-foreground-deletion.test.ts',
    ],
    target: 85,
  },
  /** The decorator's finalize that holds a policy deleted with its parent (`--cascade=foreground`), and its hook. */
  ...Object.fromEntries(
    ['lib/policy-finalizer.ts', 'hooks/podpolicy/index.ts'].map((file) => [
      file,
      {
        tests: [
          // Its functions called directly: the selector's bounds, namespaces and labels read by type, the resync.
          'test/lib/pods-policy-held-by-what-its-selector-and-deletion-say.test.ts',
          'test/lib/pods-policy-outlives-a-foreground-deletion.test.ts',
          // However many pods: the finalize over the body limit released by the bound.
          'test/lib/deleted-pods-policy-released-however-many-pods.test.ts',
          'test/lib/pods-policy-finalize-over-the-body-limit-answered-by-its-bound.test.ts',
        ],
        target: 85,
      },
    ]),
  ),
  /** The records a held parent keeps in its status (read by lib/ownership.ts and lib/events.ts). */
  'lib/held-records.ts': {
    tests: ['test/lib/ownership-held-records.test.ts', 'test/operators/collisions.test.ts'],
    target: 85,
  },
  /** What the API server and the kubelet accept in names and values copied into children. */
  'lib/values.ts': {
    tests: [
      'test/lib/values.test.ts',
      'test/operators/collisions.test.ts',
      'test/etcdcluster/restore-check-room-and-images.test.ts',
      // IDs from 0 to 2147483647 and preferred weights from 1 to 100, both ends of each bound.
      'test/lib/values-taken-up-to-the-api-servers-own-bounds.test.ts',
    ],
    target: 85,
  },
  // Backups (issues 29.6, 30.2, 30.3): what a backup or restore may reach, what pruning may delete, the one-off record.
  'hooks/etcdcommon/tenancy.ts': {
    tests: [
      'test/etcdcluster/tenancy-rules.test.ts',
      'test/etcdbackup/tenancy.test.ts',
      'test/etcdbackup/backup-targets-stay-in-namespace-whatever-the-spelling.test.ts',
      'test/etcdcluster/secret-names.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdbackup/refused.ts': {
    tests: [
      'test/etcdbackup/refused-spec-keeps-no-child-the-rules-would-refuse.test.ts',
      // Judged by what the child runs, every field of its pod (not its last-applied annotation).
      'test/etcdbackup/refused-spec-judges-the-child-as-it-runs.test.ts',
      'test/etcdbackup/refused-spec-judges-every-field-the-pod-runs.test.ts',
      // Each rule broken alone, and the condition's words for it (bounded).
      'test/etcdbackup/refused-spec-says-which-rule-each-child-breaks.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdbackup/lineage.ts': {
    tests: [
      'test/etcdbackup/lineage.test.ts',
      'test/etcdbackup/etcdbackup.test.ts',
      'test/etcdbackup/lineage-proven-by-hashkv.test.ts',
      'test/etcdbackup/lineage-proven-across-compaction.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdbackup/backup.ts': {
    tests: [
      'test/etcdbackup/lineage-proven-by-hashkv.test.ts',
      'test/etcdbackup/lineage.test.ts',
      'test/etcdbackup/etcdbackup.test.ts',
      'test/etcdbackup/oneoff-same-path-race.test.ts',
      // A one-off's record bound to its cluster (takenOnce sameSource; the command's alreadyTaken by cluster ID).
      'test/etcdbackup/oneoff-backup-retargeted-to-another-cluster-claims-no-snapshot-of-it.test.ts',
      // A snapshot stream cut short (no sha256 trailer, an error, a reset): nothing written, nothing pruned.
      'test/etcdbackup/snapshot-cut-short-not-written-nor-pruned-over.test.ts',
      'test/etcdbackup/snapshot-stream-failure-named-in-reason.test.ts',
      // A run under a CORRUPT alarm (or alarms unread) prunes nothing; NOSPACE prunes (alarmsOf, alarmsStopPruning).
      'test/etcdbackup/periodic-backup-under-corrupt-alarm-prunes-nothing.test.ts',
      // An alarm raised while the snapshot streams: read again before any prune, recorded (AlarmReads).
      'test/etcdbackup/periodic-backup-alarm-raised-during-snapshot-prunes-nothing.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdbackup/sync.ts': {
    tests: [
      'test/etcdbackup/lineage-proven-by-hashkv.test.ts',
      'test/etcdbackup/record.test.ts',
      'test/etcdbackup/tenancy.test.ts',
      'test/etcdbackup/etcdbackup.test.ts',
      'test/etcdcluster/restricted.test.ts',
      'test/etcdbackup/external-names-looked-up-as-given.test.ts',
      'test/etcdbackup/oneoff-job-complete-pod-gone-not-running.test.ts',
      'test/etcdbackup/oneoff-job-completion-read-from-either-sign.test.ts',
      // backupPodFixed: the fields of a backup pod no spec changes.
      'test/etcdbackup/backup-pod-runs-the-image-cli-unprivileged.test.ts',
      // A backup pod's result read by type (readResult), the status carried by the schema's types.
      'test/etcdbackup/backup-result-read-by-type.test.ts',
      // A one-off's record of another destination (bucket, store) dropped whole (takenOnce).
      'test/etcdbackup/oneoff-other-bucket-is-new-snapshot.test.ts',
      // A one-off's record bound to its cluster (takenOnce sameSource; the command's alreadyTaken by cluster ID).
      'test/etcdbackup/oneoff-backup-retargeted-to-another-cluster-claims-no-snapshot-of-it.test.ts',
    ],
    target: 85,
  },
  'hooks/etcdbackup/restore.ts': {
    tests: [
      'test/etcdbackup/tenancy.test.ts',
      'test/etcdcluster/safety.test.ts',
      'test/lib/namespaces.test.ts',
      'test/etcdcluster/restore-aws-text.test.ts',
      'test/etcdcluster/secret-names.test.ts',
      'test/etcdcluster/restore-recreated-same-second.test.ts',
      'test/etcdcluster/restore-one-at-a-time-rules.test.ts',
      'test/etcdcluster/restore-newer-refused-keeps-running-restore.test.ts',
      'test/etcdcluster/restore-recreated-after-success-not-replayed.test.ts',
      // The EtcdRestore hook's own sync and customize.
      'test/etcdbackup/record.test.ts',
      'test/etcdbackup/backup-and-restore-syncs-dial-nothing.test.ts',
      'test/etcdbackup/prune-spares-restore-snapshot.test.ts',
      'test/etcdcluster/tenancy-rules.test.ts',
      'test/operators/recovery-instructions.test.ts',
      'test/operators/hook-versions.test.ts',
      'test/lib/events.test.ts',
      'test/etcdbackup/restore-status-follows-the-cluster-record.test.ts',
    ],
    target: 85,
  },
  // The AWS SDK adapter of the S3 hook, against IAM and S3 as documented (quotas, short pages, throttling; issue 35).
  'hooks/s3/aws.ts': {
    tests: [
      'test/s3/aws-adapter.test.ts',
      'test/lib/deadlines.test.ts',
      'test/s3/buckets-of-another-account-never-taken.test.ts',
    ],
    target: 80,
  },
  // The pods' NetworkPolicy of the kinds that run a tenant's image: what it allows, NetworkPolicyCreated in the sync and
  // in every answer that keeps the observed children (podsPolicies, keptWithPolicies), the namespace's own policies.
  'lib/network-policy.ts': {
    tests: [
      'test/podset/pods-network-policy.test.ts',
      'test/memcached/pods-network-policy.test.ts',
      'test/memcached/held-memcached-does-not-say-its-deployment-is-given-the-new-spec.test.ts',
      'test/operators/pods-without-their-network-policy-say-so.test.ts',
      'test/operators/pods-policy-in-every-answer-that-keeps-what-exists.test.ts',
      'test/operators/refused-parents-say-whether-their-pods-run-without-their-policy.test.ts',
      'test/operators/running-pods-get-their-network-policy-while-refused-or-held.test.ts',
      'test/operators/namespace-network-policies-are-never-widened.test.ts',
      'test/operators/refused-conditions-follow-observed-children.test.ts',
      'test/etcdcluster/member-network-policy.test.ts',
      'test/etcdcluster/network-policy-not-created-is-said.test.ts',
      'test/etcdcluster/restore-check-pod-without-its-network-policy-is-said.test.ts',
      'test/etcdcluster/members-without-network-policy-said-while-spec-refused.test.ts',
      // The namespace's policies: the label keys they name, other parents' left out, the cluster's own by its marks.
      'test/lib/pod-label-sets-judged-on-the-keys-policies-name.test.ts',
      'test/operators/many-pod-templates-keep-the-metadata-service-out.test.ts',
      'test/operators/many-metaops-policies-in-a-namespace-keep-the-metadata-service-out.test.ts',
      'test/operators/another-parents-policy-is-not-the-namespaces.test.ts',
      'test/etcdcluster/admin-policy-named-like-the-restore-check-still-governs-members.test.ts',
      'test/etcdcluster/member-client-port-never-opened-past-namespace-ingress-policies.test.ts',
      // Egress: the pods no namespace egress policy selects keep metaops' (the complement), doubt keeps them too.
      'test/lib/egress-policies-select-the-pods-no-namespace-egress-policy-selects.test.ts',
      'test/operators/pods-no-namespace-egress-policy-selects-keep-the-metadata-service-out.test.ts',
      // egressComplement answers a complement of exactly MAX_COMPLEMENT_SELECTORS selectors, doubts one more.
      'test/lib/egress-complement-taken-up-to-four-selectors.test.ts',
      'test/operators/orphaned-metaops-policies-do-not-count-as-the-namespaces.test.ts',
      // A hold for a complement name keeps the pods selected (complementInFreeNames); egress changing hands between a
      // policy and its complement leaves no pod unselected (egressHandover).
      'test/operators/parent-held-for-a-complement-policy-name-keeps-its-pods-selected.test.ts',
      'test/operators/egress-changing-hands-between-a-policy-and-its-complement-leaves-no-pod-unselected.test.ts',
    ],
    target: 80,
  },
};
