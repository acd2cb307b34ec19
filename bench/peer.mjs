// The peer: a hook written by hand the way Metacontroller's examples write one, for the benchmark only. Plain
// node:http, the body read whole, JSON.parse, a sync function that builds the desired children from the parent
// and counts what it observes, JSON.stringify, done. No validation of the request or the spec (a missing field
// takes a default, anything else is trusted), no status conditions, no ETag, no metrics, no logging.
// It answers the same three kinds as metaops on the same paths, with children of the same kind and about the
// same size (bench/RESULTS.md lists both answers' bytes), so that the two are measured on the same requests.
import http from 'node:http';

const labelsFor = (app, name, component) => ({
  'app.kubernetes.io/name': app,
  'app.kubernetes.io/instance': name,
  'app.kubernetes.io/component': component,
  'app.kubernetes.io/managed-by': 'peer',
});

const restricted = { allowPrivilegeEscalation: false, capabilities: { drop: ['ALL'] } };
const podSecurity = (uid) => ({
  runAsNonRoot: true,
  runAsUser: uid,
  runAsGroup: uid,
  seccompProfile: { type: 'RuntimeDefault' },
});

function isReady(pod) {
  const conditions = (pod.status && pod.status.conditions) || [];
  return pod.status?.phase === 'Running' && conditions.some((c) => c.type === 'Ready' && c.status === 'True');
}

// PodSet: spec.size pods named <name>-<i>.
function syncPodSet({ parent, children }) {
  const name = parent.metadata.name;
  const size = parent.spec.size ?? 1;
  const observed = Object.values(children['Pod.v1'] || {});
  const labels = { ...labelsFor('podset', name, 'member'), app: name };
  const pods = [];
  for (let i = 0; i < size; i++) {
    pods.push({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: `${name}-${i}`, namespace: parent.metadata.namespace, labels },
      spec: {
        securityContext: podSecurity(65534),
        containers: [
          {
            name: 'busybox',
            image: parent.spec.image || 'busybox',
            command: parent.spec.command || ['sleep', '3600'],
            securityContext: restricted,
          },
        ],
        restartPolicy: 'Always',
      },
    });
  }
  return { status: { replicas: observed.length, readyReplicas: observed.filter(isReady).length }, children: pods };
}

// Memcached: a Deployment and a Service; status from the Deployment and the pods it runs (related).
function syncMemcached({ parent, children, related }) {
  const name = parent.metadata.name;
  const { size = 1, image = 'memcached:1.6-alpine', port = 11211 } = parent.spec;
  const labels = labelsFor('memcached', name, 'cache');
  const selector = { 'app.kubernetes.io/name': 'memcached', 'app.kubernetes.io/instance': name };
  const deployment = (children['Deployment.apps/v1'] || {})[name];
  const pods = Object.values((related && related['Pod.v1']) || {});
  return {
    status: {
      replicas: deployment?.status?.replicas ?? 0,
      readyReplicas: deployment?.status?.readyReplicas ?? 0,
      nodes: pods.map((p) => p.metadata.name).sort(),
    },
    children: [
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, namespace: parent.metadata.namespace, labels },
        spec: {
          replicas: size,
          selector: { matchLabels: selector },
          template: {
            metadata: { labels },
            spec: {
              securityContext: podSecurity(11211),
              containers: [
                {
                  name: 'memcached',
                  image,
                  command: ['memcached', '-m', '64', '-o', 'modern', '-v', '-p', String(port)],
                  ports: [{ name: 'memcached', containerPort: port, protocol: 'TCP' }],
                  securityContext: restricted,
                },
              ],
            },
          },
        },
      },
      {
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name, namespace: parent.metadata.namespace, labels },
        spec: { selector, ports: [{ name: 'memcached', port, targetPort: 'memcached', protocol: 'TCP' }] },
      },
    ],
  };
}

// MySQL: a primary (member 0) and replicas in a StatefulSet, their Secret and Services, scripts in the pod spec.
const INIT = `set -e
[[ $HOSTNAME =~ -([0-9]+)$ ]] || exit 1
ordinal=\${BASH_REMATCH[1]}
cat > /etc/mysql/conf.d/server-id.cnf <<EOF
[mysqld]
server-id=$((100 + ordinal))
log-bin=mysql-bin
gtid-mode=ON
enforce-gtid-consistency=ON
EOF
if [[ $ordinal -gt 0 ]]; then echo 'super-read-only=ON' >> /etc/mysql/conf.d/server-id.cnf; fi
cat > /etc/mysql-client/client.cnf <<EOF
[client]
user=root
password=$MYSQL_ROOT_PASSWORD
host=127.0.0.1
EOF
`;
const REPLICATE = `set -e
[[ $HOSTNAME =~ -([0-9]+)$ ]] || exit 1
ordinal=\${BASH_REMATCH[1]}
until mysql --defaults-extra-file=/etc/mysql-client/client.cnf -e 'SELECT 1' >/dev/null 2>&1; do sleep 2; done
if [[ $ordinal -eq 0 ]]; then
  mysql --defaults-extra-file=/etc/mysql-client/client.cnf -e "CREATE USER IF NOT EXISTS 'repl'@'%' IDENTIFIED BY '$REPLICATION_PASSWORD'; GRANT REPLICATION SLAVE ON *.* TO 'repl'@'%';"
else
  until mysql -h "$PRIMARY_HOST" -u repl -p"$REPLICATION_PASSWORD" -e 'SELECT 1' >/dev/null 2>&1; do sleep 2; done
  mysql --defaults-extra-file=/etc/mysql-client/client.cnf -e "STOP REPLICA; CHANGE REPLICATION SOURCE TO SOURCE_HOST='$PRIMARY_HOST', SOURCE_USER='repl', SOURCE_PASSWORD='$REPLICATION_PASSWORD', SOURCE_AUTO_POSITION=1, GET_SOURCE_PUBLIC_KEY=1; START REPLICA;"
fi
touch /tmp/replicating
exec sleep infinity
`;
const REPLICA_PROBE = `[[ $HOSTNAME =~ -0$ ]] && exit 0
mysql --defaults-extra-file=/etc/mysql-client/client.cnf -e 'SHOW REPLICA STATUS\\G' | grep -q 'Replica_IO_Running: Yes' &&
mysql --defaults-extra-file=/etc/mysql-client/client.cnf -e 'SHOW REPLICA STATUS\\G' | grep -q 'Replica_SQL_Running: Yes'
`;

function syncMySQL({ parent, children, related }) {
  const name = parent.metadata.name;
  const ns = parent.metadata.namespace;
  const { size = 1, version = '8.0' } = parent.spec;
  const storage = (parent.spec.storage && parent.spec.storage.size) || '1Gi';
  const image = `mysql:${version}`;
  const labels = labelsFor('mysql', name, 'database');
  const selector = { 'app.kubernetes.io/name': 'mysql', 'app.kubernetes.io/instance': name };
  const secretName = `${name}-mysql`;
  // Keep the passwords once they exist; new ones otherwise.
  const existing = (children['Secret.v1'] || {})[secretName];
  const data = existing?.data ?? {
    'root-password': Buffer.from(Math.random().toString(36).slice(2)).toString('base64'),
    'replication-password': Buffer.from(Math.random().toString(36).slice(2)).toString('base64'),
  };
  const fromSecret = (env, key) => ({ name: env, valueFrom: { secretKeyRef: { name: secretName, key } } });
  const mounts = [
    { name: 'conf', mountPath: '/etc/mysql/conf.d' },
    { name: 'client', mountPath: '/etc/mysql-client' },
  ];
  const service = (svcName, component, extra = {}, sel = selector) => ({
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: svcName, namespace: ns, labels: labelsFor('mysql', name, component) },
    spec: { ...extra, selector: sel, ports: [{ name: 'mysql', port: 3306, targetPort: 'mysql', protocol: 'TCP' }] },
  });
  const statefulSet = (children['StatefulSet.apps/v1'] || {})[name];
  const members = Object.values((related && related['Pod.v1']) || {}).filter((p) => /-\d+$/.test(p.metadata.name));
  return {
    status: {
      replicas: statefulSet?.status?.replicas ?? 0,
      readyReplicas: statefulSet?.status?.readyReplicas ?? 0,
      primary: `${name}-0`,
      members: members.map((p) => ({ name: p.metadata.name, ready: isReady(p) })),
    },
    children: [
      {
        apiVersion: 'v1',
        kind: 'Secret',
        metadata: { name: secretName, namespace: ns, labels: labelsFor('mysql', name, 'credentials') },
        type: 'Opaque',
        data,
      },
      service(`${name}-headless`, 'database', { clusterIP: 'None', publishNotReadyAddresses: true }),
      service(name, 'primary', {}, { ...selector, 'statefulset.kubernetes.io/pod-name': `${name}-0` }),
      service(`${name}-read`, 'read'),
      {
        apiVersion: 'apps/v1',
        kind: 'StatefulSet',
        metadata: { name, namespace: ns, labels },
        spec: {
          replicas: size,
          serviceName: `${name}-headless`,
          selector: { matchLabels: selector },
          template: {
            metadata: { labels },
            spec: {
              terminationGracePeriodSeconds: 30,
              securityContext: { ...podSecurity(999), fsGroup: 999 },
              initContainers: [
                {
                  name: 'config',
                  image,
                  command: ['bash', '-c', INIT],
                  env: [fromSecret('MYSQL_ROOT_PASSWORD', 'root-password')],
                  volumeMounts: mounts,
                  securityContext: restricted,
                },
              ],
              containers: [
                {
                  name: 'mysql',
                  image,
                  env: [
                    fromSecret('MYSQL_ROOT_PASSWORD', 'root-password'),
                    { name: 'MYSQL_INITDB_SKIP_TZINFO', value: '1' },
                  ],
                  ports: [{ name: 'mysql', containerPort: 3306, protocol: 'TCP' }],
                  volumeMounts: [{ name: 'data', mountPath: '/var/lib/mysql' }, ...mounts],
                  readinessProbe: {
                    exec: { command: ['mysqladmin', '--defaults-extra-file=/etc/mysql-client/client.cnf', 'ping'] },
                    initialDelaySeconds: 10,
                    periodSeconds: 5,
                  },
                  livenessProbe: { tcpSocket: { port: 'mysql' }, initialDelaySeconds: 30, periodSeconds: 10 },
                  securityContext: restricted,
                },
                {
                  name: 'replication',
                  image,
                  command: ['bash', '-c', REPLICATE],
                  env: [
                    fromSecret('REPLICATION_PASSWORD', 'replication-password'),
                    fromSecret('MYSQL_ROOT_PASSWORD', 'root-password'),
                    { name: 'PRIMARY_HOST', value: `${name}-0.${name}-headless` },
                  ],
                  volumeMounts: mounts,
                  readinessProbe: {
                    exec: { command: ['bash', '-c', REPLICA_PROBE] },
                    initialDelaySeconds: 5,
                    periodSeconds: 5,
                  },
                  securityContext: restricted,
                },
              ],
              volumes: [
                { name: 'conf', emptyDir: {} },
                { name: 'client', emptyDir: { medium: 'Memory' } },
              ],
            },
          },
          volumeClaimTemplates: [
            {
              apiVersion: 'v1',
              kind: 'PersistentVolumeClaim',
              metadata: { name: 'data' },
              spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage } }, volumeMode: 'Filesystem' },
              status: { phase: 'Pending' },
            },
          ],
        },
      },
    ],
  };
}

const routes = {
  '/hooks/podset/sync': syncPodSet,
  '/hooks/memcached/sync': syncMemcached,
  '/hooks/mysqlcluster/sync': syncMySQL,
};

const server = http.createServer((req, res) => {
  const sync = routes[req.url];
  if (req.method === 'GET') return res.end('ok');
  if (!sync) {
    res.writeHead(404);
    return res.end();
  }
  const chunks = [];
  req.on('data', (chunk) => chunks.push(chunk));
  req.on('end', () => {
    try {
      const desired = sync(JSON.parse(Buffer.concat(chunks).toString()));
      res.writeHead(200, { 'Content-Type': 'application/json' });
      res.end(JSON.stringify(desired));
    } catch (err) {
      res.writeHead(500);
      res.end(String(err));
    }
  });
});
server.listen(Number(process.env.PORT), '127.0.0.1');
