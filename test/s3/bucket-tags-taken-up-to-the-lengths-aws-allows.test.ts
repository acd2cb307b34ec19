// AWS takes a tag key of 1 to 128 characters and a value of 0 to 256 (hooks/s3/policy.ts tagsProblem), counted in
// characters (a character outside the BMP is one): an S3 spec is refused only past those lengths, both ends included.
import t from 'tap';
import { MAX_TAG_KEY, MAX_TAG_VALUE, tagsProblem } from '../../hooks/s3/policy.js';

t.test('a tag value of 256 characters is taken, of 257 refused', async (t) => {
  t.equal(MAX_TAG_VALUE, 256);
  t.equal(tagsProblem({ tags: { team: 'v'.repeat(256) } }), undefined, '256');
  t.equal(tagsProblem({ tags: { team: '' } }), undefined, 'empty');
  t.match(tagsProblem({ tags: { team: 'v'.repeat(257) } }), 'must be at most 256 characters', '257');
});

t.test('a tag key of 128 characters is taken, of 129 refused', async (t) => {
  t.equal(MAX_TAG_KEY, 128);
  t.equal(tagsProblem({ tags: { ['k'.repeat(128)]: 'v' } }), undefined, '128');
  t.match(tagsProblem({ tags: { ['k'.repeat(129)]: 'v' } }), /128/, '129');
});
