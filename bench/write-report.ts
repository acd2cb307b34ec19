// `npm run bench:report`: rewrites bench/RESULTS.md from bench/results.json and bench/soak.json.
import { root } from '../test/fixtures/requests.js';
import { writeResults } from './report.js';

writeResults(root);
console.log('wrote bench/RESULTS.md');
