// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane): the progress deadline
// (lib/replicas.ts) as the real control plane drives it.
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { Kubelet } from '../kubelet.js';
import { condition, secs, type Scenario } from './common.js';

const NS = 'deadline';
const NAME = 'stuck';
/** An image the tiny kubelet cannot pull: its pods wait on ErrImagePull, as an image that does not exist would. */
const MISSING_IMAGE = 'busybox:no-such-tag';
/** The PodSet's spec.progressDeadlineSeconds: short, so that the scenario sees it pass. */
const DEADLINE = 15;

export const progressDeadline: Scenario = {
  name: 'PodSet whose image never starts: ProgressDeadlineExceeded within its progressDeadlineSeconds naming the pods and ErrImagePull, Progressing=True again once the image is fixed',
  async run(k) {
    const notes: string[] = [];
    await k.kubectl(['create', 'namespace', NS]);
    const kubelet = new Kubelet(k, {
      namespace: NS,
      selector: `app.kubernetes.io/instance=${NAME}`,
      pullable: (image) => image !== MISSING_IMAGE,
    });
    kubelet.start();
    try {
      const t0 = Date.now();
      await k.kubectl(
        ['apply', '-n', NS, '-f', '-'],
        JSON.stringify({
          apiVersion: 'apps.jicki.cn/v1alpha1',
          kind: 'PodSet',
          metadata: { name: NAME },
          spec: { size: 2, image: MISSING_IMAGE, progressDeadlineSeconds: DEADLINE },
        }),
      );
      const get = () => k.json(['get', 'podset', '-n', NS, NAME]);
      await waitFor('both pods made', async () => ((await get()).status?.replicas === 2 ? true : undefined));
      const made = Date.now();
      const exceeded = await waitFor(
        'Progressing=False ProgressDeadlineExceeded',
        async () => {
          const p = await get();
          const c = condition(p, 'Progressing');
          return c?.status === 'False' && c.reason === 'ProgressDeadlineExceeded' ? p : undefined;
        },
        (DEADLINE + 60) * 1000,
      );
      const took = (Date.now() - made) / 1000;
      const message = condition(exceeded, 'Progressing').message as string;
      // Not before the deadline (counted from the last progress: the pods made), and within a few resyncs after it.
      assert.ok(
        took >= DEADLINE - 5,
        `not before its ${DEADLINE} s deadline: ${took.toFixed(1)} s after the pods were made`,
      );
      assert.ok(took <= DEADLINE + 30, `within its ${DEADLINE} s deadline and a few resyncs: ${took.toFixed(1)} s`);
      assert.match(message, new RegExp(`more than ${DEADLINE} s without progress`));
      assert.match(message, /stuck-pod-0 \(ImagePullBackOff\)/, `the pods and their reason named: ${message}`);
      assert.doesNotMatch(message, /creating the others fails/, 'nothing was refused: no creation blamed');
      assert.equal(condition(exceeded, 'Ready')?.status, 'False');
      notes.push(
        `ProgressDeadlineExceeded ${took.toFixed(1)} s after the pods were made (${secs(t0)} after apply): ${message}`,
      );
      const events = await waitFor('a Warning Event ProgressDeadlineExceeded', async () => {
        const text = await k.kubectl(['get', 'events', '-n', NS]);
        return /ProgressDeadlineExceeded/.test(text) ? text : undefined;
      });
      notes.push(
        `kubectl get events: ${events
          .split('\n')
          .find((l) => /ProgressDeadlineExceeded/.test(l))!
          .replace(/\s+/g, ' ')
          .slice(0, 200)}`,
      );

      const t1 = Date.now();
      await k.kubectl(['patch', 'podset', '-n', NS, NAME, '--type=merge', '-p', '{"spec":{"image":"busybox:1.36"}}']);
      const again = await waitFor('Progressing=True again', async () => {
        const p = await get();
        return condition(p, 'Progressing')?.status === 'True' ? p : undefined;
      });
      notes.push(`image fixed: Progressing=True ${condition(again, 'Progressing').reason} in ${secs(t1)}`);
      await waitFor(
        'both pods on the fixed image and Ready, Progressing=False Complete',
        async () => {
          const p = await get();
          const c = condition(p, 'Progressing');
          return p.status?.ready === '2/2' && c?.status === 'False' && c.reason === 'Complete' ? p : undefined;
        },
        120_000,
      );
      notes.push(`2/2 Ready and Complete ${secs(t1)} after the fix`);
      await k.kubectl(['delete', 'namespace', NS, '--wait=false']);
      return notes;
    } finally {
      await kubelet.stop();
    }
  },
};
