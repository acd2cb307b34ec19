// An EtcdBackup asks for its backup pods by a label carrying its uid, which a tenant of another namespace cannot know:
// on Metacontroller v1.5.20 a related rule by labels is matched by labels alone (no namespace), so that a rule by the
// recommended name/instance labels made a pod any tenant writes with them sync this backup as often as it was
// written. A backup from before the label keeps reading its Job's pods (a Job is never changed) until it has its result.
import t from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW } from '../fixtures/requests.js';
import { wakingRules } from '../fixtures/related-wakes.js';

const UID = 'c1a4d2e0-7b3f-4d8e-8f6a-2e9b0c4d5a17';
const UID_LABEL = 'etcdbackup.metaops.io/parent-uid';
const ONCE = { clusterName: 'example', s3: { path: 'bucket/team-b/once.db', awsSecret: 'aws' } };
const PERIODIC = { ...ONCE, backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 3 } };

const rulesOf = (p: ParentObject) =>
  (etcdbackup.customize as any)({ controller: {}, parent: p }, {}).relatedResources as RelatedResourceRule[];
const podRules = (p: ParentObject) =>
  rulesOf(p)
    .filter((r) => r.resource === 'pods')
    .map((r) => r.labelSelector);

function step(
  spec: Record<string, unknown>,
  status: Record<string, unknown> | undefined,
  children: KubeObject[],
  pods: KubeObject[] = [],
) {
  const request = backupRequest({
    spec,
    namespace: 'team-b',
    uid: UID,
    ...(status ? { status } : {}),
    children,
    pods,
    clusters: [etcdCluster('example', 'team-b')],
  });
  return { request, response: backupSync(request, 'metaops:test', FIXED_NOW) };
}

const templateOf = (child: KubeObject): any =>
  child.kind === 'CronJob' ? (child['spec'] as any).jobTemplate.spec.template : (child['spec'] as any).template;

function pod(name: string, namespace: string, labels: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels } };
}

t.test(
  'a pod of another namespace carrying every label of the backup pods but the uid syncs the backup through no rule',
  async (t) => {
    for (const spec of [ONCE, PERIODIC]) {
      const { request, response } = step(spec, undefined, []);
      const rules = rulesOf(request.parent);
      const labels = templateOf(response.children[0]!).metadata.labels as Record<string, string>;
      t.equal(labels[UID_LABEL], UID, "the pod template carries the backup's uid");
      t.not(wakingRules(rules, 'team-b', pod('nightly-backup-x1', 'team-b', labels)).length, 0, 'its own pods sync it');
      const { [UID_LABEL]: _uid, ...guessable } = labels;
      for (const labelled of [guessable, { ...guessable, [UID_LABEL]: 'nightly' }]) {
        const tenant = pod('nightly-backup-x1', 'team-a', { ...labelled, 'job-name': 'nightly-backup' });
        t.same(
          wakingRules(rules, 'team-b', tenant),
          [],
          `a pod of team-a labelled ${JSON.stringify(labelled)} wakes nothing`,
        );
      }
      t.same(podRules(request.parent), [{ matchLabels: { [UID_LABEL]: UID } }], 'asked by its uid alone');
      t.equal((response.status as any).podsLabelled, true, 'a new backup records it at its first sync');
    }
  },
);

t.test("a one-off backup from an earlier metaops reads its running Job's pod until it has the result", async (t) => {
  // Its Job as the earlier metaops made it (no uid label: a Job is never changed), running; its status then.
  const made = step(ONCE, undefined, []).response.children[0]!;
  const job = asObserved(made);
  delete templateOf(job).metadata.labels[UID_LABEL];
  job['status'] = { active: 1 };
  const old = { observedGeneration: 1, conditions: [] };
  const running = step(ONCE, old, [job]);
  t.same(
    podRules(running.request.parent),
    [
      { matchLabels: { [UID_LABEL]: UID } },
      { matchLabels: { 'app.kubernetes.io/name': 'etcdbackup', 'app.kubernetes.io/instance': 'nightly' } },
    ],
    'asked by its uid, and by name/instance while pods from before the label may hold a result',
  );
  t.notOk((running.response.status as any).podsLabelled, 'not recorded while its result is to be read');
  t.same(
    running.response.children.map((c) => `${c.kind} ${c.metadata.name}`),
    ['Job nightly-backup'],
    'its Job is answered (never changed: OnDelete)',
  );

  // It completes: its pod (name/instance labels only) holds the result, which is read.
  job['status'] = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
  const result = {
    succeeded: true,
    backupUid: UID,
    key: 'team-b/once.db',
    bucket: 'bucket',
    etcdVersion: '3.6.0',
    etcdRevision: 7,
  };
  const pods = [backupPod('nightly', 'team-b', result, '2026-01-01T00:00:00Z')];
  const read = step(ONCE, running.response.status as Record<string, unknown>, [job], pods);
  t.equal((read.response.status as any).succeeded, true, 'its result is read, not judged lost');
  t.equal((read.response.status as any).podsLabelled, true, 'recorded once the result is in the status');
  t.same(podRules(read.request.parent), podRules(running.request.parent), '(the answer asked with the status before)');
  const after = step(ONCE, read.response.status as Record<string, unknown>, [job]);
  t.same(podRules(after.request.parent), [{ matchLabels: { [UID_LABEL]: UID } }], 'then asked by its uid alone');
  t.equal((after.response.status as any).succeeded, true, 'the result stays');
});

t.test(
  'a periodic backup from an earlier metaops records it once its CronJob template carries the label',
  async (t) => {
    const made = step(PERIODIC, undefined, []).response.children[0]!;
    const cron = asObserved(made);
    delete templateOf(cron).metadata.labels[UID_LABEL];
    const old = { observedGeneration: 1, conditions: [] };
    const first = step(PERIODIC, old, [cron]);
    t.notOk((first.response.status as any).podsLabelled, 'not while its template lacks it');
    const updated = first.response.children.find((c) => c.kind === 'CronJob')!;
    t.equal(templateOf(updated).metadata.labels[UID_LABEL], UID, 'the CronJob takes it in place');
    const second = step(PERIODIC, first.response.status as Record<string, unknown>, [asObserved(updated)]);
    t.equal((second.response.status as any).podsLabelled, true);
  },
);
