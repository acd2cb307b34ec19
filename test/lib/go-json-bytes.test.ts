// Metacontroller writes its hook requests with Go's encoding/json, and the hook server's body limit counts those bytes:
// a size a hook compares with the limit (hooks/podbuggertool/sync.ts sentBytes) is measured as Go writes it
// (lib/go-json.ts). Checked against Go's own json.Marshal (the encoder Metacontroller v4.17.2 is built with, go1.26)
// when `go` is installed, and against the escapes Go documents otherwise. `\b` and `\f` are measured as go1.16
// (Metacontroller v1.5.20) wrote them, `\u0008` and `\u000c`, the larger: a newer Go writes four bytes fewer for each
// (test/lib/go-json-bytes-older-go-encoders.test.ts).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import t from 'tap';
import { asGoWritesIt, goJsonBytes } from '../../lib/go-json.js';

const controls = Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)).join('');
const SAMPLES: unknown[] = [
  '<',
  '>&<',
  '\u2028\u2029',
  controls,
  '"\\/',
  'plain ascii',
  'é ü 中文 😀',
  '\u007f\u0080\u00a0\ufeff',
  'a<b && c > d 2>&1',
  { '<key>': ['&', { '\u2028': '\u2029' }], n: 12345, neg: -7, t: true, f: false, z: null },
  ['x'.repeat(100), '<'.repeat(100), '\u2028'.repeat(100)],
  { metadata: { name: 'p', annotations: { 'a/b': '<script>alert("x")</script>' } }, spec: { args: ['\t\n\r'] } },
];

t.test('sizes as Go writes them: the escapes Go documents', async (t) => {
  t.equal(goJsonBytes('<'), 8, '"\\u003c"');
  t.equal(goJsonBytes('\u2028'), 8, '"\\u2028"');
  t.equal(goJsonBytes('\n'), 4, '"\\n"');
  t.equal(goJsonBytes('\u0001'), 8, '"\\u0001"');
  t.equal(goJsonBytes('é'), 4, 'UTF-8, two bytes');
  t.equal(goJsonBytes({ a: ['<', '&'] }), Buffer.byteLength('{"a":["\\u003c","\\u0026"]}'));
  for (const v of SAMPLES) t.equal(goJsonBytes(v), Buffer.byteLength(asGoWritesIt(JSON.stringify(v))));
  t.equal(asGoWritesIt(JSON.stringify(['<\u2028'])), '["\\u003c\\u2028"]');
  t.equal(goJsonBytes('\b\f'), Buffer.byteLength('"\\u0008\\u000c"'), '\\b and \\f as go1.16 wrote them');
  t.equal(asGoWritesIt(JSON.stringify(['\\b\b'])), '["\\\\b\\u0008"]', 'an escaped backslash before b is not \\b');
  t.equal(goJsonBytes('\\b\\f'), Buffer.byteLength('"\\\\b\\\\f"'));
});

/** Go's version, or undefined where `go` is not installed (the test below is then skipped, and says so). */
function goVersion(): string | undefined {
  try {
    return execFileSync('go', ['version'], { encoding: 'utf8' }).trim();
  } catch {
    return undefined;
  }
}
const version = goVersion();

t.test(
  "sizes as Go's encoding/json writes them, measured with Go",
  { skip: version ? false : 'go is not installed: the sizes are checked against the escapes Go documents only' },
  async (t) => {
    t.comment(version);
    const dir = mkdtempSync(join(tmpdir(), 'go-json-'));
    t.teardown(() => rmSync(dir, { recursive: true, force: true }));
    // Each line in: one JSON value; each line out: json.Marshal of it (Go's maps are written with their keys sorted,
    // the same bytes; integers are read as json.Number, written as given).
    writeFileSync(
      join(dir, 'main.go'),
      `package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"os"
)

func main() {
	in := bufio.NewScanner(os.Stdin)
	in.Buffer(make([]byte, 1<<20), 1<<26)
	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	for in.Scan() {
		d := json.NewDecoder(bytes.NewReader(in.Bytes()))
		d.UseNumber()
		var v any
		if err := d.Decode(&v); err != nil {
			panic(err)
		}
		b, err := json.Marshal(v)
		if err != nil {
			panic(err)
		}
		out.Write(b)
		out.WriteString("\\n")
	}
}
`,
    );
    writeFileSync(join(dir, 'go.mod'), 'module gojson\n\ngo 1.22\n');
    const input = SAMPLES.map((v) => JSON.stringify(v)).join('\n') + '\n';
    const output = execFileSync('go', ['run', '.'], {
      cwd: dir,
      input,
      encoding: 'utf8',
      env: { ...process.env, GOFLAGS: '-mod=mod', GOTOOLCHAIN: 'local' },
    });
    const lines = output.split('\n').slice(0, SAMPLES.length);
    t.equal(lines.length, SAMPLES.length);
    for (const [i, v] of SAMPLES.entries()) {
      const written = lines[i]!;
      // What go1.16 wrote for the same value: `\b` and `\f` as `\u0008` and `\u000c` (Go writes no other escape of
      // JSON.stringify's text longer since 1.22).
      const older = written.replace(/\\[^]/g, (e) => (e === '\\b' ? '\\u0008' : e === '\\f' ? '\\u000c' : e));
      t.ok(goJsonBytes(v) >= Buffer.byteLength(written), `sample ${i}: not below ${Buffer.byteLength(written)} bytes`);
      t.equal(
        goJsonBytes(v),
        Buffer.byteLength(older),
        `sample ${i}: ${Buffer.byteLength(older)} bytes as go1.16 writes it`,
      );
    }
  },
);
