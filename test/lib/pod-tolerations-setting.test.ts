// METAOPS_POD_TOLERATIONS names the taint keys the pods metaops makes for a tenant's spec may tolerate (lib/pod-policy.ts):
// read comma separated, `*` for every taint; an entry that is no taint key stops the server at start (etcdSettingsProblems).
import t from 'tap';
import { podTolerationsOf, podTolerationsProblems, tolerationsPolicyProblem } from '../../lib/pod-policy.js';
import { etcdSettings, etcdSettingsProblems } from '../../hooks/etcdcommon/index.js';

t.test('read comma separated, blanks dropped; unset is none', async (t) => {
  t.same(podTolerationsOf({ METAOPS_POD_TOLERATIONS: ' dedicated, ,example.com/pool ' }), [
    'dedicated',
    'example.com/pool',
  ]);
  t.same(podTolerationsOf({}), []);
  t.same(etcdSettings({ env: { METAOPS_POD_TOLERATIONS: '*' } }).podTolerations, ['*']);
});

t.test('an entry that is no taint key is a start-up problem naming it', async (t) => {
  t.same(podTolerationsProblems({ METAOPS_POD_TOLERATIONS: 'dedicated,*,example.com/pool' }), []);
  const wrong = podTolerationsProblems({ METAOPS_POD_TOLERATIONS: 'dedicated=team-b,a b' });
  t.equal(wrong.length, 2);
  t.match(wrong[0], /METAOPS_POD_TOLERATIONS: "dedicated=team-b" is no taint key/);
  t.ok(
    etcdSettingsProblems({ METAOPS_POD_TOLERATIONS: 'Bad Key' }).some((p) => p.includes('METAOPS_POD_TOLERATIONS')),
    'the server refuses to start',
  );
});

t.test('only the named keys, PreferNoSchedule and a node that stopped reporting pass', async (t) => {
  const f = 'spec.pod.tolerations';
  t.equal(tolerationsPolicyProblem(f, [{ key: 'dedicated', operator: 'Exists' }], ['dedicated']), undefined);
  t.match(
    tolerationsPolicyProblem(f, [{ key: 'dedicated', operator: 'Exists' }], []),
    /\[0\] tolerates the taint "dedicated".*names none/,
  );
  t.match(tolerationsPolicyProblem(f, [{ operator: 'Exists' }], ['dedicated']), /\[0\] tolerates every taint/);
  t.equal(tolerationsPolicyProblem(f, [{ operator: 'Exists' }], ['*']), undefined);
  t.equal(tolerationsPolicyProblem(f, [{ operator: 'Exists', effect: 'PreferNoSchedule' }], []), undefined);
  t.match(tolerationsPolicyProblem(f, [{ operator: 'Exists', effect: 'NoExecute' }], []), /every taint/);
  t.equal(tolerationsPolicyProblem(f, [{ key: 'node.kubernetes.io/unreachable', operator: 'Exists' }], []), undefined);
  t.match(
    tolerationsPolicyProblem(f, [{ key: 'node.kubernetes.io/unschedulable', operator: 'Exists' }], []),
    /unschedulable/,
  );
  t.equal(tolerationsPolicyProblem(f, undefined, []), undefined);
});
