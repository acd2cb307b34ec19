// The hooks compare sizes measured by lib/go-json.ts with the body limit so that a request Metacontroller would send
// past it is never counted as one it can send. Both Metacontroller releases the suite runs are senders: v4.17.2
// (go1.26) and v1.5.20, built with go1.16.6 (its Dockerfile: `FROM golang:1.16.6`). Go's encoding/json wrote `\b`
// and `\f` as `\u0008` and `\u000c` (six bytes) until Go 1.22 (release notes: "Marshal now escapes '\b' and '\f'
// characters as \b and \f instead of \u0008 and \u000c"). A measure of what arrives must not be below what either
// release writes: a tool's args of `\b` (allowed by the CRD, as `<` is) are three times larger on v1.5.20 than
// measured.
import t from 'tap';
import { goJsonBytes } from '../../lib/go-json.js';

t.test('sizes are not below what go1.16 (Metacontroller v1.5.20) writes: \\b and \\f in six bytes', async (t) => {
  t.ok(goJsonBytes('\b') >= Buffer.byteLength('"\\u0008"'), `"\\b" measured ${goJsonBytes('\b')} bytes`);
  t.ok(goJsonBytes('\f') >= Buffer.byteLength('"\\u000c"'), `"\\f" measured ${goJsonBytes('\f')} bytes`);
  const args = Array(16).fill('\b'.repeat(384));
  const asGo116 = JSON.stringify(args).replace(/\\b/g, '\\u0008');
  t.ok(
    goJsonBytes(args) >= Buffer.byteLength(asGo116),
    `16 args of 384 \\b: ${Buffer.byteLength(asGo116)} bytes on v1.5.20`,
  );
});
