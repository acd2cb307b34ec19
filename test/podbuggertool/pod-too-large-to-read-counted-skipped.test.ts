// A pod can be larger, as the API server writes it in JSON, than any answer the hooks read (lib/kube.ts
// MAX_OBJECT_READ_BYTES): etcd stores up to 1.5 MiB, and JSON grows some of it several times (`<` is six bytes,
// `false` five for one). The count of a tool's pods halves its pages down to one pod; a page of that one pod alone
// could not be read, and the count failed at it for ever: the status never counted the tool's other pods again.
// Such a pod is named from its metadata alone (a PartialObjectMetadataList), counted as skipped, TooLargeToRead, and
// passed; Ready=False names it.
import t from 'tap';
import { AnswerTooLargeError } from '../../lib/http.js';
import type { ListOptions } from '../../lib/kube.js';
import { FakeApi, pod, status, tool } from '../fixtures/pbt.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');

/** An API server whose pod `huge` cannot be read whole: a page with it is too large; its metadata alone is not. */
function withHugePod(api: FakeApi, huge: string): { metadataLists: ListOptions[] } {
  const seen = { metadataLists: [] as ListOptions[] };
  const list = api.list.bind(api);
  api.list = async (v, r, ns, o) => {
    const page = await list(v, r, ns, o);
    if (o.metadataOnly) {
      seen.metadataLists.push({ ...o });
      return {
        ...page,
        items: page.items.map((p) => ({
          apiVersion: 'meta.k8s.io/v1',
          kind: 'PartialObjectMetadata',
          metadata: p.metadata,
        })),
      };
    }
    if (page.items.some((p) => p.metadata.name === huge)) throw new AnswerTooLargeError(9 * 1024 * 1024);
    return page;
  };
  return seen;
}

t.test('a pod too large to read is counted as skipped, named, and the count goes on past it', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  for (const n of ['p1', 'p2', 'p3', 'p4', 'p5']) api.put(pod(n, { app: 'web' }));
  const seen = withHugePod(api, 'p3');
  const res = await status(api, ['dbg', 'a']);
  t.match(res.status, { matched: 5, pending: 4, skipped: 1, failed: 0 }, 'every pod counted');
  t.same((res.status as any).skips, [{ pod: 'p3', reason: 'TooLargeToRead' }]);
  t.equal(seen.metadataLists.length, 1, 'its metadata alone read, once');
  t.equal(seen.metadataLists[0]!.limit, 1);
  t.match(ready(res), { status: 'False' });
  t.notMatch(ready(res).reason, /Forbidden|Unreachable|ListFailed/, 'not a failed count');
});

t.test('a pod too large to read holds Ready=False, TooLargeToRead, naming it', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  api.put(pod('p1', { app: 'web' })).put(pod('big', { app: 'web' }));
  withHugePod(api, 'big');
  const res = await status(api, ['dbg', 'a']);
  t.match(res.status, { matched: 2, skipped: 1 });
  t.match(ready(res), { status: 'False', reason: 'TooLargeToRead', message: /^big is larger than/ });
});

t.test('a too-large pod another tool selects, or one being deleted, is not counted', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
  api.put(pod('p1', { app: 'web' })).put(pod('big', { app: 'web' }, {}));
  const big = [...(api as any).objects.values()].find((o: any) => o.metadata.name === 'big');
  big.metadata.deletionTimestamp = '2026-06-01T00:00:00Z';
  withHugePod(api, 'big');
  const res = await status(api, ['dbg', 'a']);
  t.match(res.status, { matched: 1, skipped: 0 });
});
