// A PodBuggerTool whose author may not debug its namespace (AuthorNotAllowed, AuthorUnverified) acts on no pod; its
// status must not become a way to read the namespace's pods either. The status is counted with the hook server's
// own rights (pods list in the namespace), so whatever it tells a refused tool's author (who may write
// PodBuggerTools, and may be refused pods list and get) is pods/list by proxy: pod names chosen by any label
// selector, with a targetContainerName no pod has, so that every selected pod is "skipped" and listed by name.
import t from 'tap';
import { DEFAULT_POLICY } from '../../hooks/podbuggertool/match.js';
import { FakeApi, pod, status, statusAndApply, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

t.test('the status of a tool whose author may not debug its namespace names none of its pods', async (t) => {
  const api = new FakeApi();
  // Mallory may write PodBuggerTools in dbg; she may neither debug nor list its pods.
  api.allow = (user) => user !== 'mallory';
  for (const name of ['payments-db-0', 'payments-db-1', 'hr-salaries-export']) api.put(pod(name, { tier: 'secret' }));
  api.put(
    tool(
      'probe',
      {
        selector: { matchExpressions: [{ key: 'tier', operator: 'Exists' }] },
        image: 'busybox',
        targetContainerName: 'none-has-this',
      },
      'dbg',
      'mallory',
    ),
  );
  const res = await status(api, ['dbg', 'probe']);
  const ready = (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'AuthorNotAllowed' }, 'the tool is refused');
  const text = JSON.stringify(res.status);
  for (const name of ['payments-db-0', 'payments-db-1', 'hr-salaries-export'])
    t.notOk(text.includes(name), `the refused tool's status does not name pod ${name}`);
});

t.test('the status of a tool without a trusted author stamp names none of its pods', async (t) => {
  const api = new FakeApi();
  api.put(pod('payments-db-0', { tier: 'secret' }));
  // Written before the admission policy (or by a client while it was absent): no stamp.
  api.put(tool('probe', { label: 'tier', image: 'busybox', targetContainerName: 'none-has-this' }, 'dbg', null));
  const res = await status(api, ['dbg', 'probe']);
  const ready = (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready');
  t.match(ready, { status: 'False', reason: 'AuthorUnverified' });
  t.notOk(JSON.stringify(res.status).includes('payments-db-0'), "the unverified tool's status does not name the pod");
});

t.test('a tool the policy refuses reads, counts and names no pod either (its author is not asked)', async (t) => {
  for (const [spec, reason] of [
    [{ image: 'evil.example/x' }, 'ImageNotAllowed'],
    [{ securityProfile: 'sysadmin' }, 'ProfileNotAllowed'],
  ] as const) {
    const api = new FakeApi();
    api.allow = (user) => user !== 'mallory';
    api.put(pod('payments-db-0', { tier: 'secret' }));
    api.put(
      tool(
        'probe',
        Object.assign({ label: 'tier', image: 'busybox', targetContainerName: 'none-has-this' }, spec),
        'dbg',
        'mallory',
      ),
    );
    const res = await status(api, ['dbg', 'probe'], { policy: DEFAULT_POLICY });
    t.match(
      (res.status!['conditions'] as any[]).find((c) => c.type === 'Ready'),
      { status: 'False', reason },
    );
    t.notOk(JSON.stringify(res.status).includes('payments-db-0'), `${reason}: no pod named`);
    t.notOk('matched' in res.status!, `${reason}: none counted`);
    t.equal(api.lists.length, 0, `${reason}: no pod read`);
  }
});

t.test('an author revoked: the names and counts the status held are gone at the next sync', async (t) => {
  const api = new FakeApi();
  let allowed = true;
  api.allow = () => allowed;
  api.put(pod('payments-db-0', { tier: 'secret' }, { containers: [{ name: 'db', image: 'postgres' }] }));
  api.put(tool('probe', { label: 'tier', image: 'busybox', targetContainerName: 'none-has-this' }));
  const before = await statusAndApply(api, ['dbg', 'probe']);
  t.match(before.status, { matched: 1, skips: [{ pod: 'payments-db-0', reason: 'TargetContainerMissing' }] });
  allowed = false;
  const after = await statusAndApply(api, ['dbg', 'probe'], { now: new Date(FIXED_NOW.getTime() + 60_000) });
  t.match(
    (after.status!['conditions'] as any[]).find((c) => c.type === 'Ready'),
    { reason: 'AuthorNotAllowed' },
  );
  t.notOk(JSON.stringify(api.stored('PodBuggerTool', 'dbg', 'probe').status).includes('payments-db-0'), 'not named');
  t.notOk('matched' in after.status!, 'nor counted');
});
