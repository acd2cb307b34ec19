// `npm run bench:report`: rewrites bench/RESULTS.md from bench/results.json and bench/soak.json.
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { root } from '../test/fixtures/requests.js';
import { report, soakSection } from './report.js';

const results = JSON.parse(readFileSync(join(root, 'bench', 'results.json'), 'utf8'));
const soakFile = join(root, 'bench', 'soak.json');
const soak = existsSync(soakFile) ? soakSection(JSON.parse(readFileSync(soakFile, 'utf8'))) : '';
writeFileSync(join(root, 'bench', 'RESULTS.md'), report(results) + soak);
console.log('wrote bench/RESULTS.md');
