// A metadata-only list (lib/kube.ts ListOptions.metadataOnly) asks the API server for a PartialObjectMetadataList,
// with plain JSON as the fallback the server may answer instead; a plain list asks for JSON alone.
import { createServer } from 'node:http';
import t from 'tap';
import { HttpKubeApi, METADATA_LIST_ACCEPT } from '../../lib/kube.js';

t.test('a metadata-only list asks for PartialObjectMetadataList; a plain one for JSON', async (t) => {
  const accepts: Array<string | undefined> = [];
  const srv = createServer((req, res) => {
    accepts.push(req.headers.accept);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        kind: 'PartialObjectMetadataList',
        apiVersion: 'meta.k8s.io/v1',
        metadata: { continue: 'n' },
        items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'big' } }],
      }),
    );
  });
  await new Promise<void>((resolve) => srv.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise((resolve) => srv.close(resolve)));
  const api = new HttpKubeApi(3000, {
    server: `http://127.0.0.1:${(srv.address() as { port: number }).port}`,
    token: 't',
  });
  const page = await api.list('v1', 'pods', 'dbg', { limit: 1, metadataOnly: true });
  t.same(page, {
    items: [{ kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: { name: 'big' } }],
    continue: 'n',
  });
  await api.list('v1', 'pods', 'dbg', { limit: 1 });
  t.same(accepts, [METADATA_LIST_ACCEPT, 'application/json']);
  t.match(
    METADATA_LIST_ACCEPT,
    /^application\/json;as=PartialObjectMetadataList;g=meta\.k8s\.io;v=v1,application\/json$/,
  );
});
