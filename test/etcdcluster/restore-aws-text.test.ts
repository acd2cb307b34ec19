// What S3 says to a restore (its snapshot check, its members' fetch step) reaches the EtcdCluster's and the
// EtcdRestore's statuses, which the tenant reads. With ambient credentials that text names the operator's (or the
// node's) AWS account and IAM role: S3's AccessDenied reads "User: arn:aws:sts::<account>:assumed-role/<role>/...".
// Every such path goes through the AWS scrubber (lib/aws-text.ts), before the text is cut.
import t from 'tap';
import { checkVerdict } from '../../hooks/etcdcluster/restore.js';
import type { KubeObject } from '../../lib/metacontroller.js';
import { restoreObject, restoreStarted, restoreStatus, running } from '../fixtures/etcd-loop.js';

const ACCOUNT = /(?<![0-9])[0-9]{12}(?![0-9])/;
const AWS_SAYS =
  's3://backups/tenant-a/snap.db: AccessDenied: User: arn:aws:sts::123456789012:assumed-role/eks-node-role/i-0abc is not authorized to perform: s3:GetObject on resource: "arn:aws:s3:::backups/tenant-a/snap.db" because no identity-based policy allows the s3:GetObject action';

function checkPod(reason: string): KubeObject {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'x-restore-check', namespace: 'tenant-a' },
    status: {
      containerStatuses: [
        { name: 'check', state: { terminated: { exitCode: 1, message: JSON.stringify({ reason }) } } },
      ],
    },
  };
}

t.test("a restore's snapshot check refused by S3 does not show the operator's account or role", async (t) => {
  const verdict = checkVerdict(checkPod(AWS_SAYS), '2026-01-02T03:04:05Z', new Date('2026-01-02T03:05:05Z'));
  t.equal(verdict.state, 'failed');
  const reason = verdict.state === 'failed' ? verdict.reason : '';
  t.notMatch(reason, ACCOUNT, `no account ID in the restore's reason: ${reason}`);
  t.notMatch(reason, /eks-node-role/, "no name of the operator's (or node's) IAM role");
  t.match(
    reason,
    /AccessDenied: User: arn:aws:sts::<account>:assumed-role\/<name> is not authorized/,
    'S3 still says why',
  );
});

t.test('scrubbed before it is cut: an account at the cut leaves no digits of it', async (t) => {
  // The 12 digits straddle the 180-character cut: cut first, a run of fewer digits would survive unscrubbed.
  for (let pad = 160; pad <= 180; pad++) {
    const text = `${'x'.repeat(pad)} arn:aws:iam::123456789012:role/ops`;
    const verdict = checkVerdict(checkPod(text), '2026-01-02T03:04:05Z', new Date('2026-01-02T03:05:05Z'));
    const reason = verdict.state === 'failed' ? verdict.reason : '';
    t.notMatch(reason, /[0-9]/, `pad ${pad}: no digit of the account: ${reason.slice(150)}`);
  }
});

t.test("the EtcdCluster's and the EtcdRestore's statuses after a check S3 refused: no account, no role", async (t) => {
  const loop = await running({ size: 3 });
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  loop.related = [r];
  loop.check = 'running';
  await loop.step();
  loop.check = { succeeded: false, reason: AWS_SAYS };
  const res = await loop.step();
  t.match(loop.s().restore, { phase: 'Failed', untouched: true });
  const clusterText = JSON.stringify([loop.s(), res.status]);
  t.match(clusterText, /AccessDenied/, 'the cause is said');
  t.notMatch(clusterText, ACCOUNT, 'no account in the EtcdCluster status');
  t.notMatch(clusterText, /eks-node-role/, 'no role in the EtcdCluster status');
  t.same(loop.pods(), ['e-0', 'e-1', 'e-2'], 'the cluster untouched');
  const restore = restoreOf(loop.s(), r);
  t.match(restore, { succeeded: false, reason: /AccessDenied/ });
  t.notMatch(JSON.stringify(restore), ACCOUNT, 'no account in the EtcdRestore status');
  t.notMatch(JSON.stringify(restore), /eks-node-role/, 'no role in the EtcdRestore status');
});

t.test("a restored member's fetch step refused by S3: the restore's reason shows no account or role", async (t) => {
  const loop = await running({ size: 3 });
  await restoreStarted(loop);
  const message = JSON.stringify({ succeeded: false, reason: AWS_SAYS });
  loop.podStatus.set('e-3', {
    phase: 'Pending',
    initContainerStatuses: [
      { name: 'check-dns', state: { terminated: { exitCode: 0 } } },
      { name: 'fetch-snapshot', state: { terminated: { exitCode: 1, message } } },
    ],
  });
  const res = await loop.step();
  t.match(loop.s().restore, {
    phase: 'Failed',
    reason: /^fetch-snapshot: s3:\/\/backups\/tenant-a\/snap\.db: AccessDenied/,
  });
  const text = JSON.stringify([loop.s(), res.status]);
  t.notMatch(text, ACCOUNT, 'no account in the EtcdCluster status');
  t.notMatch(text, /eks-node-role/, 'no role');
  const restore = restoreOf(loop.s(), restoreObject('r', '2026-07-01T00:00:00Z'));
  t.notMatch(JSON.stringify(restore), ACCOUNT, 'no account in the EtcdRestore status');
});

t.test('an EtcdRestore reading a cluster status written unscrubbed (before this) shows no account', async (t) => {
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  const restore = restoreOf({ restore: { uid: 'uid-r', name: 'r', phase: 'Failed', reason: AWS_SAYS } }, r);
  t.match(restore, { succeeded: false, reason: /AccessDenied/ });
  t.notMatch(JSON.stringify(restore), ACCOUNT);
  t.notMatch(JSON.stringify(restore), /eks-node-role/);
  // Its own final status of before, too.
  const done = restoreObject('r', '2026-07-01T00:00:00Z', { succeeded: false, reason: AWS_SAYS });
  const again = restoreOf({}, done);
  t.match(again, { succeeded: false, reason: /AccessDenied/ });
  t.notMatch(JSON.stringify(again), ACCOUNT);
});

/** The EtcdRestore hook's status for `r` against an EtcdCluster `e` with `status`. */
const restoreOf = (status: Record<string, unknown>, r: KubeObject) => restoreStatus(r, status, '2026-01-01T00:00:00Z');

t.test("the EtcdRestore's failure text: the cluster's reason cut at 200, a default where none is said", async (t) => {
  const r = restoreObject('r', '2026-07-01T00:00:00Z');
  const long = restoreOf({ restore: { uid: 'uid-r', name: 'r', phase: 'Failed', reason: 'y'.repeat(300) } }, r);
  t.equal(long['reason'], `the snapshot could not be restored: ${'y'.repeat(200)}`);
  const none = restoreOf({ restore: { uid: 'uid-r', name: 'r', phase: 'Failed' } }, r);
  t.equal(none['reason'], 'the snapshot could not be restored: a restored member failed');
  const final = restoreOf({}, restoreObject('r', '2026-07-01T00:00:00Z', { succeeded: false }));
  t.equal(final['reason'], 'the restore failed');
});
