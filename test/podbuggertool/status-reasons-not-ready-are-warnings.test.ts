// A tool's Ready=False reasons that say some pods cannot get the container are Warning Events on the tool, so that
// `kubectl describe podbuggertool` (and any alerting on Warning Events) shows them: RunsAsRoot,
// TargetContainerMissing, ContainerNameTaken do. A pod too large to read (TooLargeToRead: skipped, the container
// cannot be added there, Ready=False naming it) is the same kind of skip, and is told nowhere but in the status.
import t from 'tap';
import { AnswerTooLargeError } from '../../lib/http.js';
import { FakeApi, pod, statusTold, tool } from '../fixtures/pbt.js';

/** The tool's hook as the route calls it, with its Events recorded. */
async function statusWithEvents(api: FakeApi) {
  const { res, told } = await statusTold(api, ['dbg', 'a']);
  return { ready: (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready'), told };
}

t.test(
  'a pod skipped ContainerNameTaken: Ready=False and a Warning (as the other skips an author is told of)',
  async (t) => {
    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    api.put(pod('p1', { app: 'web' }, { containers: [{ name: 'debug-a', image: 'nginx' }] }));
    const { ready, told } = await statusWithEvents(api);
    t.match(ready, { status: 'False', reason: 'ContainerNameTaken' });
    t.match(told, [{ type: 'Warning', reason: 'ContainerNameTaken' }]);
  },
);

t.test('a pod too large to read: Ready=False TooLargeToRead, and a Warning Event on the tool', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  api.put(pod('p1', { app: 'web' })).put(pod('big', { app: 'web' }));
  // The API server's page with `big` is larger than any answer read; its metadata alone is not.
  const list = api.list.bind(api);
  api.list = async (v, r, ns, o) => {
    const page = await list(v, r, ns, o);
    if (o.metadataOnly) return page;
    if (page.items.some((p) => p.metadata.name === 'big')) throw new AnswerTooLargeError(9 * 1024 * 1024);
    return page;
  };
  const { ready, told } = await statusWithEvents(api);
  t.match(ready, { status: 'False', reason: 'TooLargeToRead' });
  t.match(
    told.filter((e) => e.type === 'Warning'),
    [{ reason: 'TooLargeToRead' }],
    `a Warning told (told: ${JSON.stringify(told.map((e) => [e.type, e.reason]))})`,
  );
});
