// The hook server reads a TLS member's handshake itself before OpenSSL sees it (lib/tls-inspect.ts ChainReader): each
// chunk the socket hands over is appended to what is still unread with Buffer.concat, a copy of all of it. A member
// runs its tenant's image (spec.repository), and it chooses how its bytes arrive: a record header announcing 36 KiB,
// then its body one byte per TCP segment (Nagle off), makes each chunk a byte and the reading quadratic, on the one
// JavaScript thread that answers every tenant's hooks. Measured here: 36,859 one-byte chunks (up to the reader's
// bound, where it refuses) cost ~1.4 s of the thread, and one health read of a member that trickles (3 connections,
// within the 1.5 s deadline) ~200 ms of CPU against ~10 ms for an ordinary handshake; a sync dials ~30 members' calls.
//
// Must hold: the reader's work is linear in the bytes it reads, however they are cut: reading a handshake a byte at a
// time copies about four times as much for four times the bytes (not sixteen), each byte a bounded number of times.
import t from 'tap';
import { ChainReader, chainProblem } from '../../lib/tls-inspect.js';

/**
 * The bytes the reader copies while it is pushed a handshake record of `bytes` body bytes, one byte a chunk: every
 * copy Node offers counted (Buffer.prototype.copy, Buffer.concat, Uint8Array.prototype.set), whatever the reader
 * uses. Counted, not timed: the same on a loaded machine.
 */
function copiedOneByteAtATime(bytes: number): number {
  let copied = 0;
  const copy = Buffer.prototype.copy;
  const concat = Buffer.concat;
  const set = Uint8Array.prototype.set;
  Buffer.prototype.copy = function (this: Buffer, ...args: Parameters<Buffer['copy']>) {
    const n = copy.apply(this, args);
    copied += n;
    return n;
  };
  Buffer.concat = (list: readonly Uint8Array[], total?: number) => {
    const b = concat(list, total);
    copied += b.length;
    return b;
  };
  Uint8Array.prototype.set = function (this: Uint8Array, array: ArrayLike<number>, offset?: number) {
    copied += array.length;
    return set.call(this, array, offset);
  };
  const reader = new ChainReader(chainProblem);
  try {
    reader.push(Buffer.from([22, 3, 3, 0x90, 0x00])); // a record of 36 KiB announced
    const one = Buffer.from([2]);
    for (let i = 0; i < bytes; i++) reader.push(one);
  } catch {
    // refused past its bound: what it copied until then is counted
  } finally {
    Buffer.prototype.copy = copy;
    Buffer.concat = concat;
    Uint8Array.prototype.set = set;
  }
  return copied;
}

t.test('reading a handshake a byte at a time copies in proportion to its bytes', async (t) => {
  const quarter = copiedOneByteAtATime(9_000);
  const whole = copiedOneByteAtATime(36_000);
  t.comment(`9,000 one-byte chunks: ${quarter} bytes copied; 36,000: ${whole}`);
  t.ok(quarter >= 9_000, "every byte pushed is copied at least once (the count sees the reader's copies)");
  t.ok(
    whole < 8 * quarter,
    `four times the bytes copy less than eight times as much (${(whole / quarter).toFixed(1)}x)`,
  );
  t.ok(whole < 4 * 36_000, `36,000 one-byte chunks copy each byte a bounded number of times (${whole} bytes)`);
});
