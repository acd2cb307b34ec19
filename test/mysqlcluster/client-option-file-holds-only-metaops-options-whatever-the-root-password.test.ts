// The root password comes from the cluster's Secret, which the namespace's tenant may edit. The config init container
// writes it into the client option file that the server's readiness probe and the replication sidecar read
// (`mysql --defaults-extra-file=root.cnf`, every few seconds). Whatever the password holds (newlines, carriage
// returns, quotes, backslashes, `#`), the file holds exactly the options metaops writes: a newline written as its own
// line would be another option of the [client] group (`plugin-dir` and `default-auth` make the probe's client load a
// library the tenant wrote into the data directory; `init-command`, `!include` and others reach the same file).
// test/real/mysql-client-reads-the-root-password-whatever-it-holds-real.test.ts reads the file with MariaDB's own
// option parser and finds the password unchanged.
import t from 'tap';
import { clientOptionFile, HOSTILE_ROOT_PASSWORDS } from '../fixtures/mysql-client-options.js';

for (const [what, password] of Object.entries(HOSTILE_ROOT_PASSWORDS)) {
  t.test(`the root password cannot add options to the client option file: ${what}`, async (t) => {
    const text = clientOptionFile(password);
    const lines = text.split('\n').filter((l) => l !== '');
    t.same(
      lines.map((l) => (l.startsWith('[') ? l : l.split('=')[0])),
      ['[client]', 'user', 'password', 'host', 'port', 'protocol'],
      `root.cnf holds the group and metaops' five options, one a line:\n${text}`,
    );
    t.match(lines[2], /^password=".*"$/, 'the password is one quoted value');
  });
}
