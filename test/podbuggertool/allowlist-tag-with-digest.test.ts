// An allowlist entry that names a tag (`ghcr.io/org/debug:1`) is "exactly that tag" (docs/podbuggertool.md). An
// image reference that carries both a tag and a digest (`name:tag@digest`) is pulled by its digest: the container
// runtime ignores the tag (containerd, CRI-O, and the reference grammar say so). So `ghcr.io/org/debug:1@sha256:<the
// digest of :dev, or of an old vulnerable build>` runs another image of the repository than the tag the
// administrator allowed, while the allowlist, reading the tag, lets it through.
import t from 'tap';
import { imageAllowed } from '../../hooks/podbuggertool/match.js';

const OTHER = `sha256:${'e'.repeat(64)}`;

t.test('an entry with a tag does not allow that tag with any digest (the runtime pulls the digest)', async (t) => {
  t.notOk(
    imageAllowed(`ghcr.io/org/debug:1@${OTHER}`, ['ghcr.io/org/debug:1']),
    'ghcr.io/org/debug:1@<another digest> is not ghcr.io/org/debug:1',
  );
  t.notOk(imageAllowed(`busybox:1.36@${OTHER}`, ['busybox:1.36']), 'busybox:1.36@<another digest> is not busybox:1.36');
  t.notOk(
    imageAllowed(`nicolaka/netshoot:latest@${OTHER}`, ['nicolaka/netshoot:latest']),
    'netshoot:latest@<another digest> is not netshoot:latest',
  );
});

t.test('what a tag entry still allows, and the entries that do name a digest', async (t) => {
  const MINE = `sha256:${'a'.repeat(64)}`;
  t.ok(imageAllowed('ghcr.io/org/debug:1', ['ghcr.io/org/debug:1']), 'the tag itself');
  t.notOk(imageAllowed(`ghcr.io/org/debug@${OTHER}`, ['ghcr.io/org/debug:1']), 'a digest alone is not the tag');
  t.notOk(imageAllowed(`busybox@${OTHER}`, ['busybox:latest']), 'nor :latest');
  t.ok(imageAllowed(`ghcr.io/org/debug:1@${MINE}`, [`ghcr.io/org/debug@${MINE}`]), 'a digest entry: that digest');
  t.notOk(imageAllowed(`ghcr.io/org/debug:1@${OTHER}`, [`ghcr.io/org/debug@${MINE}`]), 'not another');
  t.ok(imageAllowed(`ghcr.io/org/debug:1@${MINE}`, [`ghcr.io/org/debug:1@${MINE}`]), 'a tag and digest entry');
  t.notOk(imageAllowed(`ghcr.io/org/debug:1@${OTHER}`, [`ghcr.io/org/debug:1@${MINE}`]));
  t.ok(imageAllowed(`busybox:1.36@${OTHER}`, ['busybox']), 'a repository entry: any tag or digest');
  t.ok(imageAllowed(`busybox:1.36@${OTHER}`, ['busybox:*']));
  t.ok(imageAllowed(`ghcr.io/org/debug:1@${OTHER}`, ['ghcr.io/org/*']), 'a path entry: any');
});
