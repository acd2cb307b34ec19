// A PodBuggerTool is trusted only while the author policy and its binding are at generation 1 (hooks/podbuggertool/
// author.ts): once either was changed in place (narrowed and put back, applied over with other values), no stamp is
// trusted until both are deleted and created again. The tool's author is told where they look: Ready=False with
// reason AuthorUnverified and a Warning Event, both naming the object changed, its generation, and what to do; the
// injector adds nothing to the tool's pods meanwhile.
import t from 'tap';
import { AUTHOR_POLICY } from '../../hooks/podbuggertool/author.js';
import { FakeApi, inject, pod, statusTold, tool } from '../fixtures/pbt.js';

t.test('a binding changed in place: the status and a Warning Event say which, and what to do', async (t) => {
  const api = new FakeApi()
    .put(tool('a', { label: 'app=web', image: 'busybox' }, 'dbg', 'alice'))
    .put(pod('web-1', { app: 'web' }));
  // Narrowed and put back by removing the narrowing: as shipped again, generation 3, only its creation's entry.
  const binding = api.stored('MutatingAdmissionPolicyBinding', '', AUTHOR_POLICY);
  binding.metadata.generation = 3;
  await inject(api, ['dbg', 'web-1']);
  t.same(api.ephemeralNames('dbg', 'web-1'), [], 'nothing added');
  t.equal(api.reviews.length, 0, 'the stamped user is not asked about');
  const { res, told } = await statusTold(api, ['dbg', 'a']);
  const ready = (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');
  const said =
    /MutatingAdmissionPolicyBinding metaops-podbuggertool-author is at generation 3, not 1\).*delete the MutatingAdmissionPolicy and the MutatingAdmissionPolicyBinding metaops-podbuggertool-author and create them again from manifests\/admission\//;
  t.match(ready, { status: 'False', reason: 'AuthorUnverified', message: said }, 'the status says it');
  t.match(
    told.filter((e) => e.reason === 'AuthorUnverified'),
    [{ type: 'Warning', note: said }],
    `a Warning Event says it (told: ${JSON.stringify(told.map((e) => [e.type, e.reason]))})`,
  );
});
