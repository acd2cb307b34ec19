// Tenant A's EtcdCluster with TLS (spec.TLS.static.operatorSecret) runs A's image in its members (spec.repository), so
// A chooses every byte its members send the hook server. Before OpenSSL sees a member's TLS 1.2 handshake, the hook
// server holds it back in lib/tls-inspect.ts ChainReader until the Certificate message is whole and checked (or a
// ServerHelloDone ends it). The reader bounds the handshake bytes it has not read yet (MAX_CHAIN_BYTES + 4 KiB), but
// every byte it has read is kept too (`held`, released only when the reading ends): a member that sends handshake
// records of any other message type (ServerHello, HelloRequest...) for ever is read, message after message, and never
// refused, while every byte stays in the server's memory until the call's deadline (1.5 s). One health read dials a
// member three times; a sync of a 9-member cluster ~30 connections at once, two syncs of a namespace at a time; the
// server is one process shared by every tenant (the Deployment allows 512 MiB), so A's members take it down for B.
//
// Must hold: the bytes a member's handshake makes the server hold before its chain is read are bounded (a handshake
// longer than the reader reads before the certificates is refused, as a Certificate message over the bound is),
// whatever message types the member sends; one health read of such a member holds a few MiB at most.
import { spawn } from 'node:child_process';
import t from 'tap';
import { HttpEtcdClient } from '../../hooks/etcdcommon/etcd.js';
import { ChainReader, chainProblem, MAX_CHAIN_BYTES } from '../../lib/tls-inspect.js';
import { Pki } from '../fixtures/pki.js';

/** One TLS 1.2 handshake record of `size` bytes of body: one message of `type` filling it. */
function record(type: number, size = 16 * 1024): Buffer {
  const body = Buffer.alloc(size);
  body[0] = type;
  body.writeUIntBE(size - 4, 1, 3);
  return Buffer.concat([Buffer.from([22, 3, 3, size >> 8, size & 0xff]), body]);
}

t.test('the chain reader holds a bounded part of a handshake that never sends its certificates', async (t) => {
  for (const [what, type] of [
    ['ServerHello', 2],
    ['HelloRequest', 0],
    ['ServerKeyExchange', 12],
  ] as const) {
    const reader = new ChainReader(chainProblem);
    const one = record(type);
    let pushed = 0;
    let outcome = 'still reading';
    try {
      while (pushed < 64 * 1024 * 1024) {
        const out = reader.push(one);
        pushed += one.length;
        if (out) {
          outcome = 'released';
          break;
        }
      }
    } catch (err) {
      outcome = `refused: ${(err as Error).message}`;
    }
    t.comment(`${what} records: ${outcome} after ${(pushed / 2 ** 20).toFixed(1)} MiB`);
    t.ok(
      pushed <= 2 * (MAX_CHAIN_BYTES + 4096) + one.length,
      `${what} records: refused or passed on within twice the bytes read before the certificates (${(pushed / 2 ** 20).toFixed(1)} MiB taken, ${outcome})`,
    );
  }
});

/** A member (a child process, so that its buffers are not this one's) that answers every connection with handshake records of `type`, for ever. */
async function streamingMember(t: { teardown(fn: () => void): void }): Promise<number> {
  const code = `
    const net = require('node:net');
    const size = 16 * 1024;
    const body = Buffer.alloc(size); body[0] = 2; body.writeUIntBE(size - 4, 1, 3);
    const rec = Buffer.concat([Buffer.from([22, 3, 3, size >> 8, size & 0xff]), body]);
    const burst = Buffer.concat(Array(64).fill(rec));
    const server = net.createServer((s) => {
      s.on('error', () => {});
      s.on('data', () => {});
      const pump = () => { while (!s.destroyed && s.write(burst)); };
      s.on('drain', pump);
      pump();
    });
    server.listen(0, '127.0.0.1', () => console.log(server.address().port));
  `;
  const child = spawn(process.execPath, ['-e', code], { stdio: ['ignore', 'pipe', 'inherit'] });
  t.teardown(() => child.kill('SIGKILL'));
  return new Promise((resolve) => child.stdout!.once('data', (d: Buffer) => resolve(Number(d.toString().trim()))));
}

t.test('one health read of a member that sends handshake records for ever holds a few MiB at most', async (t) => {
  const port = await streamingMember(t);
  const pki = new Pki();
  const etcd = new HttpEtcdClient({
    tls: pki.operatorTls(),
    resolve: (url) => {
      const u = new URL(url);
      u.hostname = '127.0.0.1';
      u.port = String(port);
      return u.toString();
    },
  });
  global.gc?.();
  const base = process.memoryUsage();
  let peakExternal = 0;
  let peakRss = 0;
  const sample = setInterval(() => {
    const m = process.memoryUsage();
    peakExternal = Math.max(peakExternal, m.arrayBuffers - base.arrayBuffers);
    peakRss = Math.max(peakRss, m.rss - base.rss);
  }, 10);
  const began = Date.now();
  const health = await etcd.health('https://a-0.a.ns-a.svc:2379');
  clearInterval(sample);
  const mib = (n: number) => (n / 2 ** 20).toFixed(1);
  t.comment(
    `health read: ${JSON.stringify(health.error ?? health).slice(0, 120)} after ${Date.now() - began} ms; ` +
      `peak: +${mib(peakExternal)} MiB of buffers, +${mib(peakRss)} MiB RSS`,
  );
  t.equal(health.healthy, false, 'the member is not read as healthy');
  t.ok(peakExternal < 8 * 2 ** 20, `the read held at most 8 MiB of the member's bytes (+${mib(peakExternal)} MiB)`);
});
