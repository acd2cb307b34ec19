// What the framework does with an answer over a budget of lib/budget.ts, for every kind: the status budget
// (MAX_STATUS_BYTES: a status is written with its object to the API server and comes back in every request) and the
// answer budget (MAX_ANSWER_BYTES), measured on the answer built, not only estimated from the spec: observed
// children a tenant labelled with a parent's selector can add to what a spec asks for. Either is held: the status
// stored kept, every observed child kept, Ready=False StatusTooLarge or AnswerTooLarge, tried again later.
import { Type } from '@sinclair/typebox';
import t from 'tap';
import {
  answerSizeProblem,
  kib,
  MAX_ANSWER_BYTES,
  MAX_STATUS_BYTES,
  mib,
  statusBudgetProblem,
} from '../../lib/budget.js';
import { defineComposite, runHook } from '../../lib/operator.js';
import { specParser } from '../../lib/spec.js';
import { resource as podsetResource } from '../../hooks/podset/schema.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const toy = defineComposite({
  name: 'toy',
  resource: { ...podsetResource, kind: 'Toy', plural: 'toys', singular: 'toy' },
  spec: specParser(Type.Object({ children: Type.Number(), entries: Type.Number() })),
  childResources: [],
  // A status of `entries` entries of 1 KiB and `children` children of 1 KiB each (what observed children might make
  // of an answer), or one small child of its own.
  sync: ({ spec }) => ({
    status: { made: spec.children, entries: Array.from({ length: spec.entries }, () => 'x'.repeat(1024)) },
    children: spec.children
      ? Array.from({ length: spec.children }, (_, i) => ({
          apiVersion: 'v1',
          kind: 'ConfigMap',
          metadata: { name: `new-${i}` },
          data: { x: 'x'.repeat(1024) },
        }))
      : [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'new' } }],
  }),
});

const request = (spec: { children?: number; entries?: number }) =>
  ({
    controller: {},
    parent: {
      apiVersion: 'x/v1',
      kind: 'Toy',
      metadata: { name: 't', generation: 2 },
      spec: { children: 0, entries: 0, ...spec },
      status: { kept: 'yes', observedGeneration: 1 },
    },
    children: { 'ConfigMap.v1': { old: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'old' } } } },
  }) as never;

t.test('an answer within both budgets is answered as the hook made it', async (t) => {
  const many = await runHook(toy, 'sync', request({ children: 100 }), { now: FIXED_NOW });
  t.equal((many.status as any).made, 100);
  t.equal(many.children.length, 100);
  const long = await runHook(toy, 'sync', request({ entries: 200 }), { now: FIXED_NOW });
  t.equal((long.status as any).entries.length, 200);
  t.same(
    long.children.map((c) => c.metadata.name),
    ['new'],
  );
});

for (const [what, spec, reason, said] of [
  ['a status', { entries: MAX_STATUS_BYTES / 1024 + 1 }, 'StatusTooLarge', `${kib(MAX_STATUS_BYTES)} a Toy status`],
  ['an answer', { children: MAX_ANSWER_BYTES / 1024 + 1 }, 'AnswerTooLarge', `${mib(MAX_ANSWER_BYTES)} a Toy answer`],
] as const)
  t.test(`${what} over its budget is held: the stored status and every observed child kept, and said`, async (t) => {
    const res = await runHook(toy, 'sync', request(spec), { now: FIXED_NOW });
    const status = res.status as any;
    t.equal(status.kept, 'yes', 'the status stored is kept');
    t.notOk('made' in status || 'entries' in status, "the hook's status is not answered");
    t.equal(status.observedGeneration, 1, 'observedGeneration stays that of the status kept');
    t.same(
      res.children.map((c) => c.metadata.name),
      ['old'],
      'every observed child kept, nothing new made',
    );
    const ready = status.conditions.find((c: any) => c.type === 'Ready');
    t.match(ready, { status: 'False', reason });
    t.match(ready.message, `more than the ${said} may have`);
    t.ok(res.resyncAfterSeconds! > 0, 'tried again later');
    t.ok(JSON.stringify(status).length < 4096, 'the answer is small');
  });

t.test('statusBudgetProblem counts the status as JSON bytes', async (t) => {
  t.equal(statusBudgetProblem('Toy', { s: 'x'.repeat(MAX_STATUS_BYTES - 10) }), undefined);
  t.match(statusBudgetProblem('Toy', { s: 'é'.repeat(MAX_STATUS_BYTES / 2) }), 'a Toy status may have');
});

t.test('answerSizeProblem counts JSON bytes, takes the lower limit, and refuses what cannot be written', async (t) => {
  t.equal(answerSizeProblem('Toy', [{ s: 'x'.repeat(MAX_ANSWER_BYTES - 20) }]), undefined);
  t.match(answerSizeProblem('Toy', [{ s: 'é'.repeat(MAX_ANSWER_BYTES / 2) }]), 'a Toy answer may have');
  t.match(answerSizeProblem('Toy', [{ s: 'x'.repeat(2048) }], 1024), 'more than the 0.0 MiB');
  t.equal(answerSizeProblem('Toy', [{ s: 'x'.repeat(2048) }], MAX_ANSWER_BYTES * 2), undefined);
  const cyclic: any = {};
  cyclic.self = cyclic;
  t.match(answerSizeProblem('Toy', cyclic), 'more than a string can hold');
});
