// The hook server reads a TLS member's handshake itself before OpenSSL sees it (lib/tls-inspect.ts ChainReader): each
// chunk the socket hands over is appended to what is still unread with Buffer.concat, a copy of all of it. A member
// runs its tenant's image (spec.repository), and it chooses how its bytes arrive: a record header announcing 36 KiB,
// then its body one byte per TCP segment (Nagle off), makes each chunk a byte and the reading quadratic, on the one
// JavaScript thread that answers every tenant's hooks. Measured here: 36,859 one-byte chunks (up to the reader's
// bound, where it refuses) cost ~1.4 s of the thread, and one health read of a member that trickles (3 connections,
// within the 1.5 s deadline) ~200 ms of CPU against ~10 ms for an ordinary handshake; a sync dials ~30 members' calls.
//
// Must hold: the reader's work is linear in the bytes it reads, however they are cut: reading a handshake a byte at a
// time costs about four times as much for four times the bytes (not sixteen).
import t from 'tap';
import { ChainReader, chainProblem } from '../../lib/tls-inspect.js';

/** Milliseconds to push a handshake record of `bytes` body bytes, one byte a chunk (once). */
function oneByteAtATime(bytes: number): number {
  const reader = new ChainReader(chainProblem);
  const began = performance.now();
  try {
    reader.push(Buffer.from([22, 3, 3, 0x90, 0x00])); // a record of 36 KiB announced
    const one = Buffer.from([2]);
    for (let i = 0; i < bytes; i++) reader.push(one);
  } catch {
    // refused past its bound: what it cost until then is measured
  }
  return performance.now() - began;
}

t.test('reading a handshake a byte at a time costs in proportion to its bytes', async (t) => {
  oneByteAtATime(1000); // warm up
  // The two sizes in turn, seven times, the best of each: a moment of the machine's load falls on one round of one
  // size, not on every round of it (a quadratic reader costs sixteen times as much in every round).
  let quarter = Infinity;
  let whole = Infinity;
  for (let round = 0; round < 7; round++) {
    quarter = Math.min(quarter, oneByteAtATime(9_000));
    whole = Math.min(whole, oneByteAtATime(36_000));
  }
  t.comment(`9,000 one-byte chunks: ${quarter.toFixed(0)} ms; 36,000: ${whole.toFixed(0)} ms`);
  t.ok(
    whole < 8 * quarter,
    `four times the bytes cost less than eight times as much (${(whole / quarter).toFixed(1)}x)`,
  );
  t.ok(whole < 500, `36,000 one-byte chunks cost the thread less than 500 ms (${whole.toFixed(0)} ms)`);
});
