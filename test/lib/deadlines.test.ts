// One deadline, in order: every client call ends before its hook's budget, every budget before the route's
// deadline (which answers 429 and aborts the hook's signal), and the route's deadline before Metacontroller's
// webhook timeout. The numbers live in five files; this is where their order is checked, and where the signal
// is shown to stop a call that is under way.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { DEFAULT_HOOK_DEADLINE_MS, MAX_HOOK_DEADLINE_MS } from '../../lib/config.js';
import { EVENT_WAIT_MS } from '../../lib/events.js';
import { KUBE_CALL_TIMEOUT_MS } from '../../lib/kube.js';
import { WEBHOOK_TIMEOUT_SECONDS } from '../../lib/manifests.js';
import { CALL_TIMEOUT_MS, HttpEtcdClient, MUTATION_BUDGET_MS } from '../../hooks/etcdcommon/etcd.js';
import { WORK_BUDGET_MS } from '../../hooks/podbuggertool/inject.js';
import { COUNT_BUDGET_MS } from '../../hooks/podbuggertool/sync.js';
import { REQUEST_TIMEOUT_MS, SdkAwsApi } from '../../hooks/s3/aws.js';
import { HOOK_BUDGET_MS } from '../../hooks/s3/sync.js';

const webhookMs = WEBHOOK_TIMEOUT_SECONDS * 1000;

t.test('per call < hook budget < route deadline < webhook timeout', async (t) => {
  t.ok(
    DEFAULT_HOOK_DEADLINE_MS <= MAX_HOOK_DEADLINE_MS && MAX_HOOK_DEADLINE_MS < webhookMs,
    'even the largest configurable route deadline is below the webhook timeout',
  );
  // S3: each request, then the whole hook's budget.
  t.ok(REQUEST_TIMEOUT_MS < HOOK_BUDGET_MS, 'an AWS request ends within the S3 budget');
  t.ok(
    HOOK_BUDGET_MS + EVENT_WAIT_MS < DEFAULT_HOOK_DEADLINE_MS,
    'the S3 budget and its Events end before the route deadline',
  );
  // EtcdCluster: the member list and the health reads (each one call deadline, endpoints at once), one change.
  const etcdWorst = 2 * CALL_TIMEOUT_MS + Math.max(MUTATION_BUDGET_MS, CALL_TIMEOUT_MS) + EVENT_WAIT_MS;
  t.ok(etcdWorst < DEFAULT_HOOK_DEADLINE_MS, `an EtcdCluster sync ends by ${etcdWorst} ms`);
  // PodBuggerTool's injector: no call starts after its work budget; the last ends one call deadline later; then
  // its Events. The tool's status: no call after its count budget; then the framework's Events.
  const injectorWorst = WORK_BUDGET_MS + KUBE_CALL_TIMEOUT_MS + EVENT_WAIT_MS;
  t.ok(injectorWorst < DEFAULT_HOOK_DEADLINE_MS, `a PodBuggerTool injection ends by ${injectorWorst} ms`);
  const countWorst = COUNT_BUDGET_MS + KUBE_CALL_TIMEOUT_MS + EVENT_WAIT_MS;
  t.ok(countWorst < DEFAULT_HOOK_DEADLINE_MS, `a PodBuggerTool count ends by ${countWorst} ms`);
});

/** A server that accepts requests and never answers. */
async function silent(t: { teardown(fn: () => void): void }): Promise<string> {
  const server: Server = createServer(() => undefined);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  t.teardown(() => {
    server.closeAllConnections();
    server.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

t.test('the hook signal stops an etcd call under way, long before its own deadline', async (t) => {
  const endpoint = await silent(t);
  const controller = new AbortController();
  const client = new HttpEtcdClient({ timeoutMs: 5000 }).withSignal(controller.signal);
  const started = Date.now();
  setTimeout(() => controller.abort(new Error('the route deadline passed')), 100);
  const err = await client.memberList([endpoint]).catch((e: unknown) => e);
  t.match(String(err), /the route deadline passed|no etcd endpoint answered/);
  t.ok(Date.now() - started < 2000, `stopped after ${Date.now() - started} ms, not 5000`);
});

t.test('the hook signal stops an AWS call under way', async (t) => {
  const endpoint = await silent(t);
  const aws = new SdkAwsApi({
    endpoint,
    region: 'us-east-1',
    credentials: { accessKeyId: 'a', secretAccessKey: 'b' },
    requestTimeoutMs: 5000,
  });
  const controller = new AbortController();
  const started = Date.now();
  setTimeout(() => controller.abort(new Error('the route deadline passed')), 100);
  const err = await aws
    .withDeadline(HOOK_BUDGET_MS, controller.signal)
    .findBucket('some-bucket')
    .catch((e: unknown) => e);
  t.ok(err instanceof Error, 'the call failed');
  t.ok(Date.now() - started < 2000, `stopped after ${Date.now() - started} ms, not 5000`);
});
