import t from 'tap';
import { isRecord } from '../../lib/index.js';

t.test('isRecord: a JSON object is a record; null, lists and scalars are not', async (t) => {
  t.equal(isRecord({}), true);
  t.equal(isRecord({ a: 1 }), true);
  t.equal(isRecord(Object.create(null)), true);
  for (const v of [null, undefined, [], [{}], 'x', 0, 1, true, false])
    t.equal(isRecord(v), false, JSON.stringify(v) ?? 'undefined');
});
