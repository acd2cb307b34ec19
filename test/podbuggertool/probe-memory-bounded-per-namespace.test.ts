// Where a pass over a tool's pods by name stands is remembered by the hook server (probe.ts), for a bounded number of
// tools. Forgotten, a pass begins again from its first page; forgotten at every sync, it never gets past it. So one
// namespace's tools (one tenant's) forget their own passes first, never another namespace's, and the memory holds a
// bounded number of tools, each with a bounded token, whatever is asked of it.
import t from 'tap';
import {
  MAX_PROBE_TOKEN_CHARS,
  MAX_PROBES,
  MAX_PROBES_PER_NAMESPACE,
  ProbeMemory,
} from '../../hooks/podbuggertool/probe.js';

t.test("a namespace's many tools do not make another namespace's pass forgotten", async (t) => {
  const memory = new ProbeMemory();
  memory.keep('b', 'tool-b', { next: '16', passes: 0 });
  for (let i = 0; i < 20 * MAX_PROBES_PER_NAMESPACE; i++) memory.keep('a', `tool-a-${i}`, { next: '16', passes: 0 });
  t.same(memory.take('tool-b'), { next: '16', passes: 0 }, "b's pass goes on where it stood");
  t.equal(memory.probes.size, MAX_PROBES_PER_NAMESPACE + 1, `a keeps ${MAX_PROBES_PER_NAMESPACE} of its own`);
  t.same(memory.take(`tool-a-${20 * MAX_PROBES_PER_NAMESPACE - 1}`), { next: '16', passes: 0 }, 'its latest kept');
  t.same(memory.take('tool-a-0'), { passes: 0 }, 'its oldest forgotten: a new pass');
});

t.test('bounded in all, and each token bounded', async (t) => {
  const memory = new ProbeMemory();
  for (let n = 0; n < 2 * (MAX_PROBES / MAX_PROBES_PER_NAMESPACE); n++)
    for (let i = 0; i < MAX_PROBES_PER_NAMESPACE; i++) memory.keep(`ns-${n}`, `ns-${n}/tool-${i}`, { passes: 1 });
  t.equal(memory.probes.size, MAX_PROBES);
  memory.keep('c', 'tool-c', { next: 'x'.repeat(MAX_PROBE_TOKEN_CHARS + 1), passes: 0 });
  t.same(memory.take('tool-c'), { passes: 0 }, 'a token too long is not kept');
  t.equal(memory.probes.size, MAX_PROBES, 'still bounded');
});
