// An EtcdBackup asks for its backup pods by its parent label: a keyed MAC of its kind, namespace and name, which a tenant
// of another namespace cannot compute. On Metacontroller v1.5.20 a related rule by labels is matched by labels alone (no
// namespace), so that a rule by the recommended name/instance labels made a pod any tenant writes with them sync this
// backup as often as it was written; and v1.5.20 keeps customize answers by name and generation, so a backup made again
// under its name is handed the answer of the one before: the value must be the same for it. A backup from before the
// label keeps reading its Job's pods (a Job is never changed) until it has its result.
import t from 'tap';
import { etcdbackup } from '../../hooks/etcdbackup/index.js';
import type { KubeObject, ParentObject, RelatedResourceRule } from '../../lib/metacontroller.js';
import { backupPod, backupRequest, etcdCluster } from '../fixtures/backup.js';
import { backupSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW } from '../fixtures/requests.js';
import { parentLabelSettings, parentLabelValue } from '../../lib/parent-label.js';
import { wakingRules } from '../fixtures/related-wakes.js';

const UID = 'c1a4d2e0-7b3f-4d8e-8f6a-2e9b0c4d5a17';
const LABEL = 'etcdbackup.metaops.io/parent-id';
const KEYED = parentLabelSettings({ env: { METAOPS_LABEL_KEY: 'a-label-key-of-the-hook-server-0123456789' } });
const VALUE = parentLabelValue(KEYED.labelKey, 'EtcdBackup', 'team-b', 'nightly');
const ONCE = { clusterName: 'example', s3: { path: 'bucket/team-b/once.db', awsSecret: 'aws' } };
const PERIODIC = { ...ONCE, backupPolicy: { backupIntervalInSecond: 3600, maxBackups: 3 } };

const rulesOf = (p: ParentObject) =>
  (etcdbackup.customize as any)({ controller: {}, parent: p }, { settings: KEYED })
    .relatedResources as RelatedResourceRule[];
const podRules = (p: ParentObject) =>
  rulesOf(p)
    .filter((r) => r.resource === 'pods')
    .map((r) => r.labelSelector);

function step(
  spec: Record<string, unknown>,
  status: Record<string, unknown> | undefined,
  children: KubeObject[],
  pods: KubeObject[] = [],
  uid = UID,
) {
  const request = backupRequest({
    spec,
    namespace: 'team-b',
    uid,
    ...(status ? { status } : {}),
    children,
    pods,
    clusters: [etcdCluster('example', 'team-b')],
  });
  return { request, response: backupSync(request, 'metaops:test', FIXED_NOW, KEYED) };
}

const templateOf = (child: KubeObject): any =>
  child.kind === 'CronJob' ? (child['spec'] as any).jobTemplate.spec.template : (child['spec'] as any).template;

function pod(name: string, namespace: string, labels: Record<string, string>): KubeObject {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace, labels } };
}

t.test(
  'a pod of another namespace carrying every label of the backup pods but the value syncs the backup through no rule',
  async (t) => {
    for (const spec of [ONCE, PERIODIC]) {
      const { request, response } = step(spec, undefined, []);
      const rules = rulesOf(request.parent);
      const labels = templateOf(response.children[0]!).metadata.labels as Record<string, string>;
      t.equal(labels[LABEL], VALUE, 'the pod template carries the keyed value');
      t.not(wakingRules(rules, 'team-b', pod('nightly-backup-x1', 'team-b', labels)).length, 0, 'its own pods sync it');
      const { [LABEL]: _uid, ...guessable } = labels;
      const computable = ['nightly', UID, parentLabelValue(undefined, 'EtcdBackup', 'team-b', 'nightly')];
      for (const labelled of [guessable, ...computable.map((v) => ({ ...guessable, [LABEL]: v }))]) {
        const tenant = pod('nightly-backup-x1', 'team-a', { ...labelled, 'job-name': 'nightly-backup' });
        t.same(
          wakingRules(rules, 'team-b', tenant),
          [],
          `a pod of team-a labelled ${JSON.stringify(labelled)} wakes nothing`,
        );
      }
      t.same(podRules(request.parent), [{ matchLabels: { [LABEL]: VALUE } }], 'asked by the keyed value alone');
      t.equal((response.status as any).podsLabel, VALUE, 'a new backup records it at its first sync');
    }
  },
);

t.test("a one-off backup from an earlier metaops reads its running Job's pod until it has the result", async (t) => {
  // Its Job as the earlier metaops made it (no parent label: a Job is never changed), running; its status then.
  const made = step(ONCE, undefined, []).response.children[0]!;
  const job = asObserved(made);
  delete templateOf(job).metadata.labels[LABEL];
  job['status'] = { active: 1 };
  const old = { observedGeneration: 1, conditions: [] };
  const running = step(ONCE, old, [job]);
  t.same(
    podRules(running.request.parent),
    [
      { matchLabels: { [LABEL]: VALUE } },
      { matchLabels: { 'app.kubernetes.io/name': 'etcdbackup', 'app.kubernetes.io/instance': 'nightly' } },
    ],
    'asked by its value, and by name/instance while pods from before the label may hold a result',
  );
  t.notOk((running.response.status as any).podsLabel, 'not recorded while its result is to be read');
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
  t.equal((read.response.status as any).podsLabel, VALUE, 'recorded once the result is in the status');
  t.same(podRules(read.request.parent), podRules(running.request.parent), '(the answer asked with the status before)');
  const after = step(ONCE, read.response.status as Record<string, unknown>, [job]);
  t.same(podRules(after.request.parent), [{ matchLabels: { [LABEL]: VALUE } }], 'then asked by its value alone');
  t.equal((after.response.status as any).succeeded, true, 'the result stays');
});

t.test(
  'a periodic backup from an earlier metaops records it once its CronJob template carries the label',
  async (t) => {
    const made = step(PERIODIC, undefined, []).response.children[0]!;
    const cron = asObserved(made);
    delete templateOf(cron).metadata.labels[LABEL];
    const old = { observedGeneration: 1, conditions: [] };
    const first = step(PERIODIC, old, [cron]);
    t.notOk((first.response.status as any).podsLabel, 'not while its template lacks it');
    const updated = first.response.children.find((c) => c.kind === 'CronJob')!;
    t.equal(templateOf(updated).metadata.labels[LABEL], VALUE, 'the CronJob takes it in place');
    const second = step(PERIODIC, first.response.status as Record<string, unknown>, [asObserved(updated)]);
    t.equal((second.response.status as any).podsLabel, VALUE);
  },
);

t.test(
  'a one-off backup made again under its name reads the result of its Job through the answer kept before',
  async (t) => {
    const first = step(ONCE, undefined, []);
    const againUid = '5e2d7c9a-0b41-4f3e-8a6d-9c1b2e3f4a50';
    const again = step(ONCE, undefined, [], [], againUid);
    // Metacontroller v1.5.20 hands the recreated backup (generation 1 again) the customize answer of the first one.
    t.same(rulesOf(again.request.parent), rulesOf(first.request.parent), 'its answer is the same as the one kept');
    const job = asObserved(again.response.children[0]!);
    job['status'] = { succeeded: 1, conditions: [{ type: 'Complete', status: 'True' }] };
    const labels = templateOf(job).metadata.labels as Record<string, string>;
    const result = {
      succeeded: true,
      backupUid: againUid,
      key: 'team-b/once.db',
      bucket: 'bucket',
      etcdVersion: '3.6.0',
      etcdRevision: 9,
    };
    const done = backupPod('nightly', 'team-b', result, '2026-01-01T00:00:00Z');
    done.metadata.labels = { ...done.metadata.labels, ...labels };
    t.not(
      wakingRules(rulesOf(first.request.parent), 'team-b', done).length,
      0,
      'its pod is asked for by the kept answer',
    );
    const read = step(ONCE, again.response.status as Record<string, unknown>, [job], [done], againUid);
    t.equal((read.response.status as any).succeeded, true, 'its result is read, not ResultUnknown');
  },
);
