// The certificate chain a TLS server sends, checked before OpenSSL verifies it. OpenSSL verifies every signature of
// the chain a server presents, on the server's one JavaScript thread, and Node offers no bound on it (no verify
// depth, no limit on the keys): a member a tenant runs can present ~70 certificates with 3,072-bit RSA keys and
// 3,071-bit public exponents (OpenSSL limits exponents only above 3,072 bits), ~440 ms of the thread per handshake.
// So the connection's bytes pass through an inspector: in TLS 1.2 the server's Certificate message is in the clear,
// and it is read (its size, how many certificates, each one's public key) before a byte of it reaches OpenSSL; a
// chain over the bounds is refused there, the connection closed, nothing verified. The callers that inspect offer
// TLS 1.2 only (1.3 encrypts the Certificate message).
import { constants as cryptoConstants, X509Certificate, type KeyObject } from 'node:crypto';
import { isIP, connect as netConnect, type LookupFunction, type Socket } from 'node:net';
import { Duplex } from 'node:stream';
import { connect as tlsConnect, type ConnectionOptions, type TLSSocket } from 'node:tls';

/** The most certificates a chain may have: a leaf and a few intermediates (etcd's chains are one or two). */
export const MAX_CHAIN_CERTS = 5;
/** The most bytes the Certificate message may have (five certificates of ~3 KiB fit several times over). */
export const MAX_CHAIN_BYTES = 32 * 1024;
/** RSA keys a signature is verified with: their size, and a public exponent of at most 32 bits (65537 is usual). */
export const RSA_VERIFY_MIN_BITS = 2048;
export const RSA_VERIFY_MAX_BITS = 8192;
const MAX_EXPONENT = 2n ** 32n;
const CURVES = new Set(['prime256v1', 'secp384r1', 'secp521r1']);

/** The rule, as refusals say it. */
export const VERIFY_KEY_RULE =
  'a certificate the hook server verifies has an RSA key of 2048 to 8192 bits with a public exponent of at most 32 bits, an EC key on P-256, P-384 or P-521, or an Ed25519 or Ed448 key';

/** Why verifying signatures with `key` would cost more than an ordinary key does, or undefined. */
export function verifyKeyProblem(key: KeyObject): string | undefined {
  const type = key.asymmetricKeyType;
  const d = key.asymmetricKeyDetails ?? {};
  if (type === 'rsa' || type === 'rsa-pss') {
    const bits = d.modulusLength ?? 0;
    const e = d.publicExponent ?? 0n;
    if (bits < RSA_VERIFY_MIN_BITS || bits > RSA_VERIFY_MAX_BITS) return `an RSA key of ${bits} bits`;
    if (e > MAX_EXPONENT) return `an RSA key whose public exponent has ${e.toString(2).length} bits`;
    return undefined;
  }
  if (type === 'ec')
    return CURVES.has(d.namedCurve ?? '') ? undefined : `an EC key on ${d.namedCurve ?? 'no named curve'}`;
  if (type === 'ed25519' || type === 'ed448') return undefined;
  return `a key of type ${type ?? 'unknown'}`;
}

/** Why a chain (DER certificates, leaf first) is refused before it is verified, or undefined. */
export function chainProblem(certs: Buffer[]): string | undefined {
  if (certs.length === 0) return undefined;
  if (certs.length > MAX_CHAIN_CERTS)
    return `the server presented a chain of ${certs.length} certificates, more than the ${MAX_CHAIN_CERTS} the hook server verifies`;
  for (const [i, der] of certs.entries()) {
    let key: KeyObject;
    try {
      key = new X509Certificate(der).publicKey;
    } catch {
      return `certificate ${i} of the server's chain cannot be read`;
    }
    const problem = verifyKeyProblem(key);
    if (problem) return `certificate ${i} of the server's chain has ${problem}: ${VERIFY_KEY_RULE}`;
  }
  return undefined;
}

/** The `tlsStage` of a reset after the server's chain was read, before the handshake ended (the client's turn). */
export const HANDSHAKE_RESET = 'reset after the server certificate';

/** A refused chain: the connection's error. */
export class ChainRefusedError extends Error {
  readonly code = 'ERR_TLS_CHAIN_REFUSED';
  constructor(readonly reason: string) {
    super(reason);
    this.name = 'ChainRefusedError';
  }
}

const HANDSHAKE = 22;
/** A TLS alert record, and the level of one a TLS 1.2 client reads past (OpenSSL ignores warnings in a handshake). */
const ALERT = 21;
const WARNING = 1;
const CERTIFICATE = 11;
const SERVER_HELLO_DONE = 14;

/**
 * The most bytes of a server's handshake read before its certificates: the Certificate message at its bound and
 * room for what comes before it (ServerHello, ~100 bytes). Every byte is counted, read or not: a server that sends
 * handshake records of other types for ever is refused at this bound, not held until the call's deadline (one
 * health read once held 135 MiB that way).
 */
export const MAX_HANDSHAKE_READ_BYTES = MAX_CHAIN_BYTES + 4096;

/** Bytes appended at the end and read from the front, in one buffer that grows by doubling: linear in its bytes. */
class Bytes {
  private buf = Buffer.alloc(0);
  private start = 0;
  private end = 0;

  get length(): number {
    return this.end - this.start;
  }

  append(chunk: Buffer): void {
    if (this.end + chunk.length > this.buf.length) {
      const grown = Buffer.alloc(Math.max(2 * this.buf.length, this.end + chunk.length, 256));
      this.buf.copy(grown, 0, 0, this.end);
      this.buf = grown;
    }
    chunk.copy(this.buf, this.end);
    this.end += chunk.length;
  }

  /** The unread bytes (a view, valid until the next append). */
  view(): Buffer {
    return this.buf.subarray(this.start, this.end);
  }

  /** Every byte appended, read or not (a view). */
  all(): Buffer {
    return this.buf.subarray(0, this.end);
  }

  skip(n: number): void {
    this.start += n;
  }
}

/**
 * Reads the server's side of a TLS 1.2 handshake as it arrives: holds every byte back until the Certificate message
 * is whole and checked (or the handshake shows there is none: a resumed session, a fatal alert, anything not a
 * handshake record), then lets everything through unread. At most MAX_HANDSHAKE_READ_BYTES are held, and each
 * byte is copied a bounded number of times (a server that sends a byte per segment costs no more than one that
 * sends its flight at once, per byte).
 */
export class ChainReader {
  /** Every byte pushed until done (given on whole); records are read from its front. */
  private records = new Bytes();
  /** The handshake messages of the records read. */
  private handshake = new Bytes();
  done = false;

  constructor(private readonly check: (certs: Buffer[]) => string | undefined) {}

  /** The bytes that may go on to OpenSSL now; throws ChainRefusedError for a chain over the bounds. */
  push(chunk: Buffer): Buffer | undefined {
    if (this.done) return chunk;
    this.records.append(chunk);
    while (!this.done && this.records.length >= 5) {
      const unread = this.records.view();
      const type = unread[0]!;
      const length = unread.readUInt16BE(3);
      // A warning alert before the Certificate message: OpenSSL reads past it (up to a few in a row) and goes on with
      // the handshake, so the reading goes on past it too, else the chain after it would reach OpenSSL unread.
      if (type === ALERT && length === 2) {
        if (unread.length < 7) break;
        if (unread[5] === WARNING) {
          this.records.skip(7);
          continue;
        }
      }
      if (type !== HANDSHAKE) return this.release();
      if (unread.length < 5 + length) break;
      this.handshake.append(unread.subarray(5, 5 + length));
      this.records.skip(5 + length);
      this.messages();
    }
    if (this.done) return this.release();
    if (this.records.all().length > MAX_HANDSHAKE_READ_BYTES)
      throw new ChainRefusedError(
        `the server's handshake is larger than the hook server reads before its certificates`,
      );
    return undefined;
  }

  private release(): Buffer {
    this.done = true;
    const out = this.records.all();
    this.records = new Bytes();
    this.handshake = new Bytes();
    return out;
  }

  /** Reads whole handshake messages: the Certificate message is checked, ServerHelloDone ends the reading. */
  private messages(): void {
    while (this.handshake.length >= 4) {
      const unread = this.handshake.view();
      const type = unread[0]!;
      const length = unread.readUIntBE(1, 3);
      if (type === CERTIFICATE && length > MAX_CHAIN_BYTES)
        throw new ChainRefusedError(
          `the server's certificate chain is ${Math.ceil(length / 1024)} KiB, more than the ${MAX_CHAIN_BYTES / 1024} KiB the hook server verifies`,
        );
      if (unread.length < 4 + length) return;
      const body = unread.subarray(4, 4 + length);
      this.handshake.skip(4 + length);
      if (type === CERTIFICATE) {
        const problem = this.check(certificates(body));
        if (problem) throw new ChainRefusedError(problem);
        this.done = true;
        return;
      }
      if (type === SERVER_HELLO_DONE) {
        this.done = true;
        return;
      }
    }
  }
}

/** The DER certificates of a TLS 1.2 Certificate message's body (a malformed one: what could be read). */
function certificates(body: Buffer): Buffer[] {
  const certs: Buffer[] = [];
  if (body.length < 3) return certs;
  const total = Math.min(body.readUIntBE(0, 3) + 3, body.length);
  let at = 3;
  while (at + 3 <= total) {
    const length = body.readUIntBE(at, 3);
    at += 3;
    certs.push(body.subarray(at, Math.min(at + length, total)));
    at += length;
    if (certs.length > MAX_CHAIN_CERTS) break;
  }
  return certs;
}

/** A duplex over `socket` whose readable side is the server's bytes, passed on only as the reader allows. */
function inspected(socket: Socket, reader: ChainReader): Duplex {
  const duplex: Duplex = new Duplex({
    read() {
      socket.resume();
    },
    write(chunk: Buffer, _encoding, done) {
      socket.write(chunk, done);
    },
    final(done) {
      socket.end();
      done();
    },
    destroy(err, done) {
      socket.destroy();
      done(err);
    },
  });
  socket.on('data', (chunk: Buffer) => {
    let out: Buffer | undefined;
    try {
      out = reader.push(chunk);
    } catch (err) {
      socket.destroy();
      duplex.destroy(err as Error);
      return;
    }
    if (out && !duplex.push(out)) socket.pause();
  });
  // The end is passed on after the last bytes (an alert the server sent before closing reaches OpenSSL, which reads
  // it and fails with what it says), never by destroying the duplex under the reader.
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    duplex.push(null);
  };
  socket.on('end', end);
  socket.on('close', end);
  socket.on('error', (err) => duplex.destroy(err));
  // A Duplex that wraps a socket is taken by node:tls as one that is connected: it writes at once, and the socket
  // buffers what is written before it connects.
  return duplex;
}

/**
 * A TLS 1.2 connection whose server chain is checked by `check` before OpenSSL verifies it; the options are
 * those of tls.connect (host, port, servername, lookup, the TLS material).
 */
export function inspectedTlsConnection(
  options: ConnectionOptions & { host?: string; port?: number | string; lookup?: LookupFunction },
  check: (certs: Buffer[]) => string | undefined = chainProblem,
): TLSSocket {
  const host = options.host ?? 'localhost';
  const { port, lookup } = options;
  const socket = netConnect({ host, port: Number(port), ...(lookup ? { lookup } : {}) });
  // The name the server's certificate is checked against is the host's; an address is sent as no server name.
  const servername = options.servername ?? (isIP(host) ? undefined : host);
  const reader = new ChainReader(check);
  const tls = tlsConnect({
    ...options,
    host,
    ...(servername ? { servername } : {}),
    socket: inspected(socket, reader),
    maxVersion: 'TLSv1.2',
    // No renegotiation: a renegotiated handshake is encrypted, its chain never read here, and each one is a full
    // handshake (signed with the client's key) on the server's one thread, as often as the server asks. OpenSSL
    // answers a HelloRequest with a no_renegotiation alert and goes on; disableRenegotiation ends the connection
    // should a renegotiation start anyway.
    secureOptions: (options.secureOptions ?? 0) | cryptoConstants.SSL_OP_NO_RENEGOTIATION,
  });
  tls.disableRenegotiation();
  // In TLS 1.2 a server that refuses the client's certificate sends its alert and closes while the client's last
  // flight is unread: the close often arrives as a reset that discards the alert. A reset after the server's chain
  // was read and before the handshake ended is said so (HANDSHAKE_RESET), for the caller to name what it means.
  let secured = false;
  tls.once('secureConnect', () => (secured = true));
  tls.prependListener('error', (err: Error & { code?: string; tlsStage?: string }) => {
    if (!secured && reader.done && err.code === 'ECONNRESET') err.tlsStage = HANDSHAKE_RESET;
  });
  return tls;
}
