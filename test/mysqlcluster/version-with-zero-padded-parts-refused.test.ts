// MySQL image tags never pad a part with zeros: mysql:8.0.36 exists, mysql:8.00.36, mysql:8.0.036, mysql:08.4.3 and
// mysql:8.04 do not. spec.version takes "at most three numbers of at most three digits" (docs/mysqlcluster.md), and
// the hook reads the parts as numbers, so a zero-padded version passes the 8.0.23 minimum and the downgrade guard as
// the release it equals numerically, while the StatefulSet's template is given the tag as written: every member is
// rolled, one after the other (member size-1 first, a running replica deleted), onto an image no registry has
// (ErrImagePull, then ImagePullBackOff), and the cluster loses a member for a value the hook could have refused
// (issue 31, 4: "a rollout never deletes a working member for a replacement that cannot be created"; 5: versions
// that cannot work are refused as InvalidSpec).
import t from 'tap';
import { mysqlSync } from '../fixtures/hooks.js';
import { asObserved, FIXED_NOW, objectMap, request } from '../fixtures/requests.js';

const ready = (res: any) => res.status.conditions.find((c: any) => c.type === 'Ready');
const image = (res: any) =>
  res.children.find((c: any) => c.kind === 'StatefulSet')?.spec.template.spec.containers[0].image;

for (const [running, typed] of [
  ['8.0.36', '8.00.36'],
  ['8.0.36', '8.0.036'],
  ['8.4.3', '8.4.03'],
  ['8.4.3', '08.4.3'],
  ['8.4.3', '8.04'],
]) {
  t.test(`a cluster running mysql:${running} is not rolled onto mysql:${typed}`, async (t) => {
    const first = mysqlSync(request('mysqlcluster', { size: 3, version: running }), FIXED_NOW);
    t.equal(image(first), `mysql:${running}`);
    const observed = objectMap(first.children.map((c) => asObserved(c)));
    const next = mysqlSync(request('mysqlcluster', { size: 3, version: typed }, { children: observed }), FIXED_NOW);
    t.equal(image(next), `mysql:${running}`, `the StatefulSet keeps mysql:${running} (it got ${image(next)})`);
    t.match(ready(next), { status: 'False', reason: 'InvalidSpec' }, `"${typed}" is refused, naming spec.version`);
  });
}

t.test('a new cluster on a zero-padded version makes nothing', async (t) => {
  const res = mysqlSync(request('mysqlcluster', { size: 1, version: '8.04' }), FIXED_NOW);
  t.match(ready(res), { status: 'False', reason: 'InvalidSpec' });
  t.equal(image(res), undefined, 'no StatefulSet on mysql:8.04');
});
