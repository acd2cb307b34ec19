// The test kubelet (test/fixtures/etcd-kubelet.ts) logs a member's stdout and stderr into one file: a process that
// closes one stream before writing the other (etcd that exits at start, its pod then deleted by the hook) must not
// end the log under the other (ERR_STREAM_WRITE_AFTER_END, uncaught: the suite then hangs to its timeout).
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { EtcdKubelet } from '../fixtures/etcd-kubelet.js';

t.test('a member that closes stdout, then writes stderr and exits: both logged, nothing thrown', async (t) => {
  const k = new EtcdKubelet('outlog', { size: 1, version: '3.6.9' });
  const exits = join(k.dir, 'etcd-exits');
  writeFileSync(exits, '#!/bin/sh\necho out\nexec 1>&-\nsleep 0.3\necho "err after out closed" >&2\nexit 1\n');
  chmodSync(exits, 0o755);
  k.images.set('v3.6.9', exits);
  const errors: unknown[] = [];
  const onError = (e: unknown) => errors.push(e);
  process.on('uncaughtException', onError);
  t.teardown(async () => {
    process.off('uncaughtException', onError);
    await k.shutdown();
  });
  for (let i = 0; i < 4; i++) {
    await k.step();
    await new Promise((r) => setTimeout(r, 500));
  }
  t.same(
    errors.map((e) => (e as { code?: string }).code),
    [],
    'no write after end',
  );
  t.match(
    readFileSync(join(k.dir, 'outlog-0.log'), 'utf8'),
    /err after out closed/,
    'stderr logged after stdout closed',
  );
});
