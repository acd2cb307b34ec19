// The injector's request is one pod and every PodBuggerTool of its namespace (the related objects: Metacontroller v4
// sends them whole), so "a request's size does not depend on how many pods a tool selects" (issue 32). It depends on
// the tools instead. Each tool could once carry, within its CRD's own limits, 64 command and 64 args strings of 4096
// characters and 64 env values of 4096 (about 790 KB): eleven such tools, written by anyone who may write
// PodBuggerTools there, put every injector request of the namespace past the hook server's 8 MiB body limit (413),
// and no tool's container reached any pod of that namespace. The CRD now bounds a spec so that TOOLS_PER_REQUEST
// tools at their largest fit in one request.
import t from 'tap';
import { operators as hooks } from '../../main/operators.js';
import { buildApp } from '../../lib/app.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { asGoWritesIt } from '../../lib/go-json.js';
import { parser } from '../../hooks/podbuggertool/match.js';
import { SPEC_BOUNDS, TOOLS_PER_REQUEST } from '../../hooks/podbuggertool/schema.js';
import { WORST_SPECS } from '../fixtures/worst.js';
import { ANY, FakeApi, injectorRequest, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

/**
 * A tool at the bounds its CRD allows (test/fixtures/worst.ts: command, args, env and selector all full, label keys
 * of 317 characters, the strings of `<`, which Go's encoding/json writes in six bytes), with the longest name.
 */
function largest(name: string): any {
  return tool(name.padEnd(253, 'n'), structuredClone(WORST_SPECS['podbuggertool']!), 'dbg', 'mallory');
}

t.test('a tool at its CRD bounds is valid, and one past them is not', async (t) => {
  t.ok(parser.parse(largest('a').spec).ok, 'at the bounds');
  t.equal(largest('a').spec.command.length, SPEC_BOUNDS.arguments.maxItems);
  const over = largest('a');
  over.spec.command.push('x');
  t.notOk(parser.parse(over.spec).ok, 'one more command string');
  const long = largest('a');
  long.spec.env[0].value += 'x';
  t.notOk(parser.parse(long.spec).ok, 'one more character in an env value');
});

t.test("another author's tools within their CRD bounds do not stop a tool's injection in the namespace", async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  for (let i = 0; i < TOOLS_PER_REQUEST; i++) api.put(largest(`big-${i}`));
  const app = buildApp({
    operators: hooks,
    auth: { bearer: 'token-0123456789abcdef' },
    services: { kube: () => api, now: () => FIXED_NOW },
    settings: { 'podbuggertool-injector': { policy: ANY } },
  });
  t.teardown(() => app.close());
  // As Metacontroller writes it (Go's encoding/json: the tools' `<` in six bytes each), which the body limit counts.
  const payload = asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', 'web-1')));
  const bytes = Buffer.byteLength(payload);
  t.comment(`request: ${(bytes / 1024 / 1024).toFixed(2)} MiB for one pod and ${TOOLS_PER_REQUEST + 1} tools`);
  t.ok(bytes < DEFAULT_BODY_LIMIT * 0.95, 'the request is within the body limit, with room to spare');
  const res = await app.inject({
    method: 'POST',
    url: '/hooks/podbuggertool-injector/sync',
    payload,
    headers: { authorization: 'Bearer token-0123456789abcdef', 'content-type': 'application/json' },
  });
  t.equal(res.statusCode, 200, 'the request is served');
  t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], "tool a's container is added");
});

t.test('a namespace whose tools outgrow the body limit: the refusal says why and what to do', async (t) => {
  const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
  for (let i = 0; i < TOOLS_PER_REQUEST * 3; i++) api.put(largest(`big-${i}`));
  const app = buildApp({
    operators: hooks,
    auth: { bearer: 'token-0123456789abcdef' },
    services: { kube: () => api, now: () => FIXED_NOW },
    settings: { 'podbuggertool-injector': { policy: ANY } },
  });
  t.teardown(() => app.close());
  const post = (url: string) =>
    app.inject({
      method: 'POST',
      url,
      payload: asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', 'web-1'))),
      headers: { authorization: 'Bearer token-0123456789abcdef', 'content-type': 'application/json' },
    });
  const res = await post('/hooks/podbuggertool-injector/sync');
  t.equal(res.statusCode, 413, 'refused: its body is not read');
  t.match(res.json().message, /every PodBuggerTool of its namespace.*body limit.*docs\/podbuggertool\.md/);
  t.same(api.patches, [], 'nothing patched');
  // Another route's refusal is the plain one.
  const other = await post('/hooks/podset/sync');
  t.equal(other.statusCode, 413);
  t.notMatch(other.json().message, /PodBuggerTool/);
});
