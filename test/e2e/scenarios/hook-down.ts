// An end-to-end scenario (test/e2e/run.ts runs them in order on one control plane).
import assert from 'node:assert/strict';
import { waitFor } from '../cluster.js';
import { examples, secs, type Scenario } from './common.js';

export const hookDown: Scenario = {
  name: 'Hook server down: a change made meanwhile is applied once it is back, nothing deleted meanwhile',
  async run(k) {
    const notes: string[] = [];
    await k.kubectl(['apply', '-f', examples(k.repo, 'podset.yaml')]);
    const selector = 'app.kubernetes.io/instance=podset-sample';
    const live = async () =>
      (await k.json(['get', 'pods', '-l', selector])).items.filter((p: any) => !p.metadata.deletionTimestamp);
    await waitFor('three pods', async () => (await live()).length === 3);
    const uids = (await live()).map((p: any) => p.metadata.uid).sort();

    await k.stopHooks();
    const t0 = Date.now();
    const errorsBefore = (k.readLog('metacontroller').match(/connection refused/g) ?? []).length;
    await k.kubectl(['patch', 'podset', 'podset-sample', '--type=merge', '-p', '{"spec":{"size":5}}']);
    // Wait until Metacontroller has tried the hook and failed, then check that nothing changed.
    await waitFor(
      'Metacontroller to fail reaching the hook',
      async () => (k.readLog('metacontroller').match(/connection refused/g) ?? []).length > errorsBefore,
    );
    assert.deepEqual(
      (await live()).map((p: any) => p.metadata.uid).sort(),
      uids,
      'no pod touched while the hook was down',
    );
    notes.push(`Metacontroller saw the hook down after ${secs(t0)}; the three pods were untouched`);

    const t1 = Date.now();
    await k.startHooks();
    await waitFor('five pods once the hook is back', async () => (await live()).length === 5, 120_000);
    const now = (await live()).map((p: any) => p.metadata.uid);
    for (const uid of uids) assert.ok(now.includes(uid), 'the original pods are still there');
    notes.push(`change applied ${secs(t1)} after the hook came back (Metacontroller's retry back-off)`);
    notes.push(await k.assertQuiet({ parents: ['podsets/podset-sample'], hooks: ['podset/sync'] }));
    await k.kubectl(['delete', 'podset', 'podset-sample', '--wait=true']);
    return notes;
  },
};
