// On doubt a refused tool stays refused: when the sync's budget is spent before the review of its author can be
// asked at all, the refusal its status holds for this generation stays as it was written (reason and message), and
// nothing is counted; a tool whose status says AuthorAllowedOnSomePods stays so.
import t from 'tap';
import { FakeApi, pod, status, statusAndApply, tool } from '../fixtures/pbt.js';

t.test('a refused author stays refused, word for word, when no review can be asked in time', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  api.allow = () => false;
  const first = await statusAndApply(api, ['dbg', 'a']);
  const before = (first.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.match(before, { status: 'False', reason: 'AuthorNotAllowed' });

  // The author allowed since, but the call's deadline passed before anything could be asked: nothing heard.
  api.allow = () => true;
  let reviews = 0;
  const create = api.create.bind(api);
  api.create = async (apiVersion: string, resource: string, ns: string, body: any) => {
    if (body.spec?.resourceAttributes) reviews++;
    return create(apiVersion, resource, ns, body);
  };
  const second = await status(api, ['dbg', 'a'], { signal: AbortSignal.abort() });
  const ready = (second.status as any).conditions.find((c: any) => c.type === 'Ready');
  t.equal(reviews, 0, 'no review asked');
  t.same(ready, before, 'the refusal as it was written');
  t.notOk('matched' in (second.status as any), 'nothing counted');
});
