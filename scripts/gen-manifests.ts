// `npm run manifests`: writes the generated CRDs and controllers under manifests/, and the Helm chart made from the
// same definitions under charts/metaops/.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderChart } from './render-chart.js';
import { renderManifests } from './render-manifests.js';

const repo = join(dirname(fileURLToPath(import.meta.url)), '..');

function write(dir: string, files: Map<string, string>, generatedDirs: string[]): void {
  const root = join(repo, dir);
  for (const sub of generatedDirs) {
    mkdirSync(join(root, sub), { recursive: true });
    for (const name of readdirSync(join(root, sub), { withFileTypes: true })) {
      const path = sub === '.' ? name.name : `${sub}/${name.name}`;
      if (name.isFile() && !files.has(path)) rmSync(join(root, path));
    }
  }
  for (const [path, text] of files) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
    console.log(`wrote ${dir}/${path}`);
  }
}

// manifests/: the generated folders only (deploy/ and examples/ are written by hand).
write('manifests', renderManifests(), ['crds', 'controllers']);
// charts/metaops/: every file is generated.
write('charts/metaops', renderChart(), ['.', 'templates', 'templates/crds', 'templates/controllers']);
