// A label selector's NotIn, as Kubernetes defines it (apimachinery labels.Requirement.Matches): an object without the
// key is selected; only one whose value is listed is not. A PodBuggerTool selecting `env notin (prod)` debugs the pods
// that carry no env label at all, as `kubectl get pods -l 'env notin (prod)'` lists them.
import t from 'tap';
import { matchesSelector } from '../../lib/labels.js';

const notProd = { matchExpressions: [{ key: 'env', operator: 'NotIn' as const, values: ['prod'] }] };

t.test('NotIn selects an object that does not carry the key', async (t) => {
  t.ok(matchesSelector({ app: 'web' }, notProd), 'no env label: selected');
  t.ok(matchesSelector({}, notProd), 'no labels at all: selected');
  t.ok(matchesSelector(undefined, notProd), 'labels absent: selected');
});

t.test('NotIn selects other values and refuses the listed ones', async (t) => {
  t.ok(matchesSelector({ env: 'staging' }, notProd), 'another value: selected');
  t.notOk(matchesSelector({ env: 'prod' }, notProd), 'a listed value: not selected');
  t.ok(matchesSelector({ env: '' }, notProd), 'an empty value is a value, not listed: selected');
});
