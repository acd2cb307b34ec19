// The client option file the config init container writes (hooks/mysqlcluster/scripts.ts CONFIG_SCRIPT), read by
// MariaDB's own option parser (my_print_defaults, installed with the server e2e/mariadb.sh installs): whatever the
// root password in the cluster's Secret holds, the [client] group holds metaops' five options and the password exactly
// as the Secret has it (escapes undone), so the probes log in and nothing else reaches the client.
import t from 'tap';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { serverDir } from '../fixtures/mysql-members.js';
import { clientOptionFile, HOSTILE_ROOT_PASSWORDS } from '../fixtures/mysql-client-options.js';

const printDefaults = [join(serverDir, 'my_print_defaults'), join(dirname(serverDir), 'bin', 'my_print_defaults')];

function parsed(text: string): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'mysql-client-parse-'));
  try {
    const file = join(dir, 'root.cnf');
    writeFileSync(file, text);
    for (const bin of printDefaults) {
      try {
        return execFileSync(bin, [`--defaults-file=${file}`, 'client'], { encoding: 'utf8' })
          .replace(/\n$/, '')
          .split(/\n(?=--)/);
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
      }
    }
    throw new Error(`no my_print_defaults beside ${serverDir}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

for (const [what, password] of Object.entries(HOSTILE_ROOT_PASSWORDS)) {
  t.test(`the client reads the root password as the Secret holds it and no other option: ${what}`, async (t) => {
    const options = parsed(clientOptionFile(password));
    t.same(options, ['--user=root', `--password=${password}`, '--host=127.0.0.1', '--port=3306', '--protocol=TCP']);
  });
}
