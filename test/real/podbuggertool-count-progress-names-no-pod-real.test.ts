// "A tool that acts names pods ... only when its author may also `list` pods in its namespace: an author who may
// debug but not list is told how many pods and why, never which" (docs/podbuggertool.md, What a tool's status says
// about pods). A count cut short keeps where it stopped in `status.countProgress`, with "the API server's continue
// token of the next page". A real API server's continue token is base64 JSON of the list's resourceVersion and the
// key to start from: the name of the next pod the tool selects. An author who may not list pods reads, in the
// status of their own tool, the name of a pod they were never to be told (and, with a selector per label value, one
// after another).
import t from 'tap';
import { COUNT_BUDGET_MS, PAGE_SIZE } from '../../hooks/podbuggertool/sync.js';
import type { KubeApi } from '../../lib/kube.js';
import { startApiServer } from '../fixtures/apiserver.js';
import { FakeApi, status, tool } from '../fixtures/pbt.js';

const api = startApiServer(t, 'pbt-progress', ['dbg']);

t.test(
  'a count cut short names no pod to an author who may not list them, not even in its continue token',
  async (t) => {
    const names = Array.from({ length: PAGE_SIZE + 20 }, (_, i) => `payroll-db-${String(i).padStart(3, '0')}`);
    api.kubectl(
      ['create', '-f', '-'],
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: names.map((name) => ({
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name, namespace: 'dbg', labels: { app: 'web' } },
          spec: { containers: [{ name: 'app', image: 'nginx' }] },
        })),
      }),
    );
    // The author (the fake's policy and reviews) may debug the namespace but not list its pods.
    const fake = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' }));
    fake.allowList = () => false;
    const real = api.kube();
    // The pods are the real API server's; the first list of the namespace's tools (read after the first page of pods,
    // whose room in a request depends on their size) comes back just after the count's budget (a slow API server):
    // the first page is counted, and the count is cut short before the second.
    let pages = 0;
    let toolsListed = 0;
    const kube: KubeApi = {
      get: fake.get.bind(fake),
      create: fake.create.bind(fake),
      addEphemeralContainers: fake.addEphemeralContainers.bind(fake),
      list: async (...args: Parameters<NonNullable<KubeApi['list']>>) => {
        if (args[1] === 'pods') {
          pages++;
          return real.list(...args);
        }
        // The tools are the fake's (no PodBuggerTool CRD on this API server).
        const page = await fake.list(...args);
        if (toolsListed++ === 0) await new Promise((r) => setTimeout(r, COUNT_BUDGET_MS + 200));
        return page;
      },
    };
    const res = await status(kube as unknown as FakeApi, ['dbg', 'a'], {}, fake.stored('PodBuggerTool', 'dbg', 'a'));
    const st = res.status as any;
    t.ok(st.countProgress, `the count was cut short and said where it stopped (${JSON.stringify(st.conditions)})`);
    const token = String(st.countProgress?.continue ?? '');
    const decoded = Buffer.from(token, 'base64').toString('utf8');
    const named = names.filter((n) => JSON.stringify(st).includes(n) || decoded.includes(n));
    t.same(named, [], `no pod named in the status (countProgress.continue decodes to ${JSON.stringify(decoded)})`);
    // The sealed token still does its work: the next sync opens it, and the real API server resumes the list there.
    fake.setStatus('dbg', 'a', st);
    const later = { now: new Date(Date.parse(st.countedAt) + 10_000) };
    const next = await status(
      kube as unknown as FakeApi,
      ['dbg', 'a'],
      later,
      fake.stored('PodBuggerTool', 'dbg', 'a'),
    );
    t.match(next.status, { matched: names.length, pending: names.length }, 'the count resumed and completed');
    t.equal(pages, 2, 'from the second page: the first was not read again');
    t.equal((next.status as any).countProgress, undefined);
  },
);
