// The author stamp is trusted only on a tool written while the admission policy and its binding stamped every tool
// as shipped. A binding edited in place (kubectl edit, a Helm upgrade with other values) keeps its creationTimestamp:
// narrowed for a while (an objectSelector that leaves out the tools of one label) and then put back as shipped, it
// leaves the tools written meanwhile with whatever annotation their writer gave them. Such a tool was created after
// the policy and binding, and they are as shipped when the hook looks: its stamp must still not be trusted, since
// the binding changed after the tool was written (its generation and managedFields say when).
import t from 'tap';
import { FakeApi, TOOL_CREATED } from '../fixtures/pbt.js';
import { bindingPutBack, unverified } from '../fixtures/pbt-author.js';

t.test('a tool written while the binding was narrowed is not trusted once the binding is put back', async (t) => {
  const api = new FakeApi();
  // Created 2026-01-01 as shipped; narrowed to tools labelled stamped=yes (generation 2), then put back as shipped
  // on 2026-01-02 at noon (generation 3). The tool, labelled otherwise, was written on 2026-01-02 at midnight, in
  // between: its annotation `v1;alice;...` is its writer's (mallory's), not the policy's.
  bindingPutBack(api, { manager: 'kubectl-edit', time: '2026-01-02T12:00:00Z', fieldsV1: { 'f:spec': {} } });
  t.ok(
    Date.parse(TOOL_CREATED) < Date.parse('2026-01-02T12:00:00Z'),
    'the tool was written before the binding was put back',
  );
  await unverified(t, api, 'the stamp is not trusted');
});
