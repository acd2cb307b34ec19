// etcd's authentication on: every member serves (its pod Ready), but the member list, asked without credentials, is
// refused (EtcdError 'Unauthenticated', the client's kind for it). metaops has no credentials for the cluster's etcd
// (as etcd-operator, it does not support authentication): the status says so (Available=Unknown and Synced=False,
// reason AuthenticationEnabled, naming how to go on), never "quorum lost" or "members down", and nothing is
// destroyed on that doubt: a member whose pod is lost meanwhile is neither removed nor replaced, the pods stay.
// Each answer fed back as the next observed state.
import t from 'tap';
import { EtcdError } from '../../hooks/etcdcommon/etcd.js';
import { running } from '../fixtures/etcd-loop.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test("etcd's authentication on: held and said, no member removed or replaced", async (t) => {
  const loop = await running({ size: 3 });
  loop.etcd.listError = new EtcdError('etcdserver: user name is empty', 'Unauthenticated');
  loop.lose('e-1');
  for (let s = 1; s <= 40; s++) {
    loop.now = new Date(FIXED_NOW.getTime() + s * 60_000);
    await loop.step();
  }
  const cond = (type: string) => loop.s().conditions.find((c: any) => c.type === type);
  t.same(loop.etcd.calls, [], 'no membership change in 40 minutes');
  t.same(loop.pods(), ['e-0', 'e-2'], 'the pods stay; none made, none deleted');
  t.match(cond('Available'), {
    status: 'Unknown',
    reason: 'AuthenticationEnabled',
    message: /authentication is enabled/,
  });
  t.match(cond('Synced'), { status: 'False', reason: 'AuthenticationEnabled', message: /etcdctl auth disable/ });
  t.notMatch(JSON.stringify(loop.s().conditions), /QuorumLost|members down/, 'never said lost or down');
});
