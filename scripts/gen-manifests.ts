// `npm run manifests`: writes the generated CRDs and controllers under manifests/.
import { mkdirSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { renderManifests } from './render-manifests.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', 'manifests');
const files = renderManifests();
for (const dir of ['crds', 'controllers']) {
  mkdirSync(join(root, dir), { recursive: true });
  for (const name of readdirSync(join(root, dir))) {
    if (!files.has(`${dir}/${name}`)) rmSync(join(root, dir, name));
  }
}
for (const [path, text] of files) {
  writeFileSync(join(root, path), text);
  console.log(`wrote manifests/${path}`);
}
