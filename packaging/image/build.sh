#!/usr/bin/env bash
# Builds the OCI image (Docker format, which keeps HEALTHCHECK) without a daemon: from
# scratch, the release binary (packaging/release.sh, stripped here), the shared
# libraries it needs (from ldd), the CA certificates, and a non-root user (10001) whose
# data directory /var/lib/tessera is a volume. Writes a docker-archive tarball.
# Needs buildah (vfs storage, chroot isolation: no daemon, no container runtime).
# Usage: packaging/image/build.sh BINARY OUTPUT.tar
set -euo pipefail
binary="$1"; out="$2"
version="$("$binary" --version | sed -E 's/ .*//')"
commit="$("$binary" --version | sed -E 's/.*commit ([0-9a-f]+|unknown)\).*/\1/')"
export STORAGE_DRIVER=vfs BUILDAH_ISOLATION=chroot BUILDAH_FORMAT=docker
rm -f "$out"
root="$(mktemp -d)"; trap 'rm -rf "$root"' EXIT
chmod 0755 "$root"
install -D -m 0755 "$binary" "$root/usr/bin/tessera"
strip --strip-unneeded "$root/usr/bin/tessera"
# The libraries the binary loads, at the paths the loader looks for them.
for library in $(ldd "$binary" | awk '/=> \//{print $3} /^\t\//{print $1}'); do
    install -D -m 0755 "$(readlink -f "$library")" "$root$library"
done
install -D -m 0644 /etc/ssl/certs/ca-certificates.crt "$root/etc/ssl/certs/ca-certificates.crt"
printf 'root:x:0:0:root:/root:/sbin/nologin\ntessera:x:10001:10001:Tessera:/var/lib/tessera:/sbin/nologin\n' > "$root/etc/passwd"
printf 'root:x:0:\ntessera:x:10001:\n' > "$root/etc/group"
install -d -m 0700 -o 10001 -g 10001 "$root/var/lib/tessera"
install -d -m 1777 "$root/tmp"
container="$(buildah from scratch)"
# As the files are here (ownership kept): root's, but the data directory the user's own.
mount="$(buildah mount "$container")"
cp -a "$root/." "$mount/"
buildah umount "$container" >/dev/null
buildah config \
    --user 10001:10001 --workingdir /var/lib/tessera --volume /var/lib/tessera --port 8080/tcp \
    --env TESSERA_HOST=0.0.0.0 --env TESSERA_DATA_DIR=/var/lib/tessera \
    --entrypoint '["/usr/bin/tessera"]' --cmd '["serve"]' \
    --healthcheck 'CMD /usr/bin/tessera health' --healthcheck-interval 30s --healthcheck-timeout 5s \
    --label org.opencontainers.image.title=tessera --label "org.opencontainers.image.version=$version" \
    --label "org.opencontainers.image.revision=$commit" \
    "$container"
buildah commit --format docker --rm "$container" "docker-archive:$out:tessera:$version" >/dev/null
echo "$out"
