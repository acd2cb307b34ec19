// Which hooks can hold a turn of the server's body budget for seconds (lib/body-budget.ts: once another namespace's
// request has waited half its wait, the turns in hand are asked to give way, a hook's turnWanted): only a hook that
// calls out, and a hook calls out only through the clients its definition makes. EtcdCluster (its members: a
// membership change gives way, hooks/etcdcluster/sync.ts unlessWanted; its reads take one call deadline, 1.5 s) and S3
// (AWS: its calls stop when the turn is wanted, test/s3/sync-waiting-on-aws-gives-way-to-another-namespace.test.ts)
// give way; PodBuggerTool and its injector call the cluster's own API server within their work budgets. Every other hook (MySQLCluster,
// Memcached, PodSet, EtcdBackup, EtcdRestore, the NetworkPolicy decorators) is given no client: its probes and its
// backups' etcd reads run in the tenant's own pods, and it answers from what Metacontroller sent, synchronously
// (test/etcdbackup/backup-and-restore-syncs-dial-nothing.test.ts). A new hook with clients is added here once it is
// judged.
import t from 'tap';
import { operators } from '../../main/operators.js';

const CALLING_OUT = ['etcdcluster', 'podbuggertool', 'podbuggertool-injector', 's3'];

t.test('only the hooks judged for their turn of the body budget are given clients to call out with', async (t) => {
  const withClients = operators
    .filter((op) => (op as { clients?: unknown }).clients !== undefined)
    .map((op) => op.name)
    .sort();
  t.same(withClients, CALLING_OUT, `hooks with clients: ${withClients}`);
  t.ok(operators.length > CALLING_OUT.length, 'and the others have none');
});
