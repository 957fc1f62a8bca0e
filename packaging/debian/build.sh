#!/usr/bin/env bash
# Builds tessera_VERSION_amd64.deb from a release binary (packaging/release.sh):
#   /usr/bin/tessera, /etc/tessera/tessera.yaml (a conffile), the systemd unit
#   tessera.service, a `tessera` system user made by postinst, the docs, and the Grafana
#   dashboard and Prometheus alert rules (/usr/share/tessera/{grafana,prometheus}).
# Needs dpkg-dev (dpkg-shlibdeps) and binutils (strip). Prints the package's path.
# Usage: packaging/debian/build.sh BINARY OUTPUT_DIRECTORY
set -euo pipefail
binary="$1"; out="$2"
here="$(cd "$(dirname "$0")" && pwd)"; root="$(cd "$here/../.." && pwd)"
version="$("$binary" --version | sed -E 's/^v?([^ ]+).*/\1/')"
# Debian versions: a describe suffix -3-gabc1234 becomes +3.gabc1234, and a build from a
# clone without tags (-gabc1234, after VERSION's release) +gabc1234.
version="$(printf '%s' "$version" | sed -E 's/-([0-9]+)-g([0-9a-f]+)/+\1.g\2/; s/-g([0-9a-f]+)/+g\1/; s/-dirty$/+dirty/')"
stage="$(mktemp -d)"; trap 'rm -rf "$stage"' EXIT
install -D -m 0755 "$binary" "$stage/usr/bin/tessera"
strip --strip-unneeded "$stage/usr/bin/tessera"
install -D -m 0644 "$here/tessera.yaml" "$stage/etc/tessera/tessera.yaml"
install -D -m 0644 "$here/tessera.service" "$stage/usr/lib/systemd/system/tessera.service"
install -d -m 0755 "$stage/usr/share/doc/tessera"
install -m 0644 "$root/docs/OPERATIONS.md" "$stage/usr/share/doc/tessera/OPERATIONS.md"
install -m 0644 "$here/copyright" "$stage/usr/share/doc/tessera/copyright"
install -D -m 0644 "$root/packaging/grafana/tessera.json" "$stage/usr/share/tessera/grafana/tessera.json"
install -D -m 0644 "$root/packaging/prometheus/alerts.yml" "$stage/usr/share/tessera/prometheus/alerts.yml"
printf 'tessera (%s) stable; urgency=medium\n\n  * Release %s.\n\n -- Tessera <tessera@example.org>  %s\n' \
    "$version" "$version" "$(date -R)" | gzip -9n > "$stage/usr/share/doc/tessera/changelog.gz"
mkdir -p "$stage/DEBIAN" "$stage/debian"
printf '/etc/tessera/tessera.yaml\n' > "$stage/DEBIAN/conffiles"
# The shared libraries the binary links, as Debian packages.
printf 'Source: tessera\nPackage: tessera\n' > "$stage/debian/control"
depends="$(cd "$stage" && dpkg-shlibdeps -O usr/bin/tessera 2>/dev/null | sed -n 's/^shlibs:Depends=//p')"
rm -rf "$stage/debian"
cat > "$stage/DEBIAN/control" <<CONTROL
Package: tessera
Version: $version
Architecture: amd64
Maintainer: Tessera <tessera@example.org>
Depends: $depends, adduser
Section: net
Priority: optional
Homepage: https://github.com/tessera/tessera
Description: strong-authentication identity server
 Tessera is an identity server for device-bound multi-factor login
 (device key, PIN, biometrics, TOTP) with OpenID Connect for the services
 that rely on it.
CONTROL
# Libraries compiled into the one binary from its Swift packages' sources (Yams vendors
# libyaml; zlib comes with a compression package), said so to lintian.
install -D -m 0644 "$here/lintian-overrides" "$stage/usr/share/lintian/overrides/tessera"
install -m 0755 "$here/postinst" "$stage/DEBIAN/postinst"
install -m 0755 "$here/prerm" "$stage/DEBIAN/prerm"
install -m 0755 "$here/postrm" "$stage/DEBIAN/postrm"
mkdir -p "$out"
dpkg-deb --root-owner-group --build "$stage" "$out/tessera_${version}_amd64.deb" >/dev/null
echo "$out/tessera_${version}_amd64.deb"
