// settle.ts holds the conditions read from what members say (HEALTH_REASONS) and writes every other at once
// (AT_ONCE_REASONS). Condition reasons are written where each condition is made, across hooks/etcdcluster: a reason
// added there and in neither list would be written at once whatever it says (a sync loop again if members flap), and
// a reason renamed there would leave a stale entry here. This reads the sources and holds both lists to them.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { AT_ONCE_REASONS, HEALTH_REASONS } from '../../hooks/etcdcluster/settle.js';

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? sources(p) : p.endsWith('.ts') ? [p] : [];
  });
}

const files = new Map([...sources('hooks/etcdcluster'), ...sources('lib')].map((p) => [p, readFileSync(p, 'utf8')]));
const literals = (expr: string) => [...expr.matchAll(/'([A-Za-z]+)'/g)].map((m) => m[1]!);

/** The reasons an expression can give: its string literals, or those of the constant it names. */
function reasonsOf(expr: string, file: string): string[] {
  const found = literals(expr);
  if (found.length || !/^[A-Za-z_]\w*$/.test(expr)) return found;
  const def = new RegExp(`const ${expr} = ([^;]+);`);
  for (const text of [files.get(file)!, ...files.values()]) {
    const m = def.exec(text);
    if (m) return literals(m[1]!);
  }
  return [];
}

/** Every condition reason the sources write: the helpers' second argument and each condition object's reason. */
const written = new Map<string, string>();
for (const [file, text] of files) {
  if (!file.startsWith('hooks/')) continue;
  const exprs = [
    ...[...text.matchAll(/\b(?:available|scaling|recovering)\(\s*[^,()]+,\s*([^,]+),/g)].map((m) => m[1]!),
    ...[...text.matchAll(/type: '(?:Ready|Available|Scaling|Upgrading|Recovering)',[^}]*?reason: ([^,}]+)/g)].map(
      (m) => m[1]!,
    ),
  ];
  for (const e of exprs) for (const r of reasonsOf(e.trim(), file)) written.set(r, file);
}

t.test('the sources write the reasons the lists know (the scan finds them)', async (t) => {
  t.ok(written.size >= 30, `${written.size} reasons found`);
  for (const r of ['ClusterReady', 'Degraded', 'QuorumLost', 'EtcdUnreachable', 'MajorityCrashLooping'])
    t.ok(written.has(r), r);
});

t.test('every condition reason written is classified once: held (what members say) or written at once', async (t) => {
  for (const [r, file] of written) {
    const n = Number(HEALTH_REASONS.has(r)) + Number(AT_ONCE_REASONS.has(r));
    t.equal(n, 1, `${r} (${file}) in exactly one of settle.ts's lists`);
  }
});

t.test('no reason in settle.ts that the sources no longer write', async (t) => {
  for (const r of [...HEALTH_REASONS, ...AT_ONCE_REASONS]) t.ok(written.has(r), `${r} is written somewhere`);
});
