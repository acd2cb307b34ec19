// The CRD bounds a PodBuggerTool's strings in characters (command and args 32 of 1024, env values 32 of 1024), and
// TOOLS_PER_REQUEST tools at those bounds are said to fit in one injector request with room (docs/podbuggertool.md,
// Bounds: "32 tools at these bounds ... make a request of 4.4 MiB ... inside the hook server's 8 MiB body limit with
// room"; a ResourceQuota of 32 tools is what the docs tell an administrator to set). That sizing counts one byte a
// character (test/podbuggertool/largest.ts fills the strings with ASCII letters). Metacontroller sends the request as
// Go's encoding/json writes it, which escapes `<`, `>` and `&` as `\u003c`, `\u003e`, `\u0026` (six bytes for one
// character; hooks/podbuggertool/sync.ts sentBytes counts them so) and U+2028 / U+2029 as `\u2028` / `\u2029`, always.
// A tool whose strings are `<` at the same CRD bounds is some 640 KB on the wire: a tenant's tools within their CRD
// bounds and within a quota of 32 put every injector request of the namespace past the body limit (413), and another
// author's tool there adds nothing to any pod. Expected: TOOLS_PER_REQUEST tools within the CRD bounds, whatever
// their characters, fit in one request as Metacontroller encodes it.
import t from 'tap';
import { operators as hooks } from '../../main/operators.js';
import { buildApp } from '../../lib/app.js';
import { DEFAULT_BODY_LIMIT } from '../../lib/config.js';
import { parser } from '../../hooks/podbuggertool/match.js';
import { SPEC_BOUNDS, TOOLS_PER_REQUEST } from '../../hooks/podbuggertool/schema.js';
import { WORST_SPECS } from '../fixtures/worst.js';
import { ANY, FakeApi, injectorRequest, pod, tool } from '../fixtures/pbt.js';
import { FIXED_NOW } from '../fixtures/requests.js';

const TOKEN = 'token-0123456789abcdef';

/** JSON text as Go's encoding/json writes it (Metacontroller's request): `<`, `>`, `&`, U+2028, U+2029 escaped. */
function asGoWritesIt(text: string): string {
  return text.replace(/[<>&\u2028\u2029]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** A tool at the bounds its CRD allows, as test/podbuggertool/largest.ts makes it, its strings of `<`. */
function largest(name: string): any {
  const spec = structuredClone(WORST_SPECS['podbuggertool']!) as any;
  const fill = (n: number) => '<'.repeat(n);
  spec.command = spec.command.map((s: string) => fill(s.length));
  spec.args = spec.args.map((s: string) => fill(s.length));
  spec.env = spec.env.map((e: { name: string; value: string }) => ({ ...e, value: fill(e.value.length) }));
  return tool(name.padEnd(253, 'n'), spec, 'dbg', 'mallory');
}

t.test(
  "another author's tools within their CRD bounds do not stop a tool's injection, as Metacontroller sends them",
  async (t) => {
    const sample = largest('a');
    t.ok(parser.parse(sample.spec).ok, 'a tool of `<` strings at the bounds is valid');
    t.equal(sample.spec.command.length, SPEC_BOUNDS.arguments.maxItems);
    t.equal(sample.spec.command[0].length, SPEC_BOUNDS.arguments.maxLength);

    const api = new FakeApi().put(tool('a', { label: 'app=web', image: 'busybox' })).put(pod('web-1', { app: 'web' }));
    for (let i = 0; i < TOOLS_PER_REQUEST; i++) api.put(largest(`big-${i}`));
    const app = buildApp({
      operators: hooks,
      auth: { bearer: TOKEN },
      services: { kube: () => api, now: () => FIXED_NOW },
      settings: { 'podbuggertool-injector': { policy: ANY } },
    });
    t.teardown(() => app.close());
    const payload = asGoWritesIt(JSON.stringify(injectorRequest(api, 'dbg', 'web-1')));
    t.comment(
      `request as Metacontroller writes it: ${(Buffer.byteLength(payload) / 1024 / 1024).toFixed(2)} MiB for one pod and ${TOOLS_PER_REQUEST + 1} tools (body limit ${DEFAULT_BODY_LIMIT / 1024 / 1024} MiB)`,
    );
    const res = await app.inject({
      method: 'POST',
      url: '/hooks/podbuggertool-injector/sync',
      payload,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
    });
    t.equal(res.statusCode, 200, `the request is served (answered ${res.statusCode})`);
    t.same(api.ephemeralNames('dbg', 'web-1'), ['debug-a'], "tool a's container is added");
  },
);
