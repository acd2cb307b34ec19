// A namespace's calls under way and its budget of calls over time (lib/namespace-calls.ts), the one helper the S3
// share (hooks/s3/share.ts) and the etcd caps (hooks/etcdcommon/etcd.ts Shares) keep theirs in.
import t from 'tap';
import { NamespaceCalls, waitingForShare, WAITING_FOR_SHARE } from '../../lib/namespace-calls.js';
import type { CompositeSyncRequest } from '../../lib/metacontroller.js';

const T0 = new Date('2026-01-01T00:00:00Z');
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

t.test('a budget starts full, is spent by calls, refills evenly over its period, never past full', async (t) => {
  const calls = new NamespaceCalls(100);
  t.equal(calls.callsLeft('a', 50, T0), 50, 'full at first');
  calls.spend('a', 30);
  calls.spend('a');
  t.equal(calls.callsLeft('a', 50, T0), 19);
  t.equal(calls.callsLeft('a', 50, at(20)), 29, 'refilled by 50/100 a second for 20 s');
  t.equal(calls.callsLeft('a', 50, at(1000)), 50, 'never past full');
  t.equal(calls.callsLeft('a', 50, T0), 50, 'a clock gone back refills nothing and takes nothing');
  t.equal(calls.callsLeft('b', 50, T0), 50, "another namespace's budget is its own");
});

t.test('waitFor: 0 while the budget holds what is needed, else the whole seconds until it does', async (t) => {
  const calls = new NamespaceCalls(100);
  t.equal(calls.waitFor('a', 50, 13, T0), 0);
  calls.spend('a', 45);
  t.equal(calls.waitFor('a', 50, 5, T0), 0, '5 left, 5 needed');
  t.equal(calls.waitFor('a', 50, 13, T0), 16, '8 more at 0.5 a second');
  calls.spend('a', 20);
  t.equal(calls.waitFor('a', 50, 13, T0), 56, 'overdrawn: what is owed paid back first');
  t.equal(calls.waitFor('a', 50, 500, at(1000)), 0, 'never more than the whole budget is waited for');
});

t.test('hook calls under way are counted until they settle, failed ones too', async (t) => {
  const calls = new NamespaceCalls(100);
  let release!: () => void;
  const first = calls.during('a', () => new Promise<void>((r) => (release = r)));
  const failed = calls.during('a', async () => {
    throw new Error('no');
  });
  t.equal(calls.inFlight('a'), 2);
  await t.rejects(failed);
  t.equal(calls.inFlight('a'), 1);
  t.equal(calls.inFlight('b'), 0);
  release();
  await first;
  t.equal(calls.inFlight('a'), 0);
});

t.test('at most maxNamespaces budgets remembered, the least recently used forgotten first', async (t) => {
  const calls = new NamespaceCalls(100, 2);
  for (const ns of ['a', 'b']) {
    calls.callsLeft(ns, 10, T0);
    calls.spend(ns, 1);
  }
  calls.callsLeft('a', 10, T0);
  calls.callsLeft('c', 10, T0);
  t.equal(calls.callsLeft('a', 10, T0), 9, 'a, used last, remembered');
  t.equal(calls.callsLeft('b', 10, T0), 10, 'b forgotten: a full budget again');
  calls.spend('z', 5);
  t.equal(calls.callsLeft('z', 10, T0), 10, 'a namespace not remembered spends nothing');
});

t.test('the answer of a sync waiting for its share keeps every child and the status, Ready too', async (t) => {
  const request = {
    controller: {},
    parent: {
      apiVersion: 'x/v1',
      kind: 'X',
      metadata: { name: 'x', namespace: 'a', generation: 3 },
      status: {
        observedGeneration: 2,
        phase: 'Running',
        conditions: [
          { type: 'Ready', status: 'True', reason: 'Ok', message: 'ok', lastTransitionTime: '2025-01-01T00:00:00Z' },
        ],
      },
    },
    children: {
      'Pod.v1': { p: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'a' }, status: {} } },
    },
    related: {},
    finalizing: false,
  } as unknown as CompositeSyncRequest;
  const answer = waitingForShare(request, 'waiting', 42, T0);
  t.equal(answer.resyncAfterSeconds, 42);
  t.match(answer.status, {
    observedGeneration: 2,
    phase: 'Running',
    conditions: [
      { type: 'Synced', status: 'False', reason: WAITING_FOR_SHARE, message: 'waiting' },
      { type: 'Ready', status: 'True', reason: 'Ok' },
    ],
  });
  t.match(answer.children, [{ kind: 'Pod', metadata: { name: 'p' } }]);
});
