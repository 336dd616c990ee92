#!/bin/sh
# Installs Heliograph from its release tarball, upgrades an installed one, or goes back to the
# version before the last upgrade (README.md, "Install on a Raspberry Pi or Debian"):
#
#   sudo sh install.sh heliograph-<version>-linux-<arch>.tar.gz   install or upgrade
#   sudo sh /opt/heliograph/current/install.sh rollback           back to the previous version
#
# It checks Node.js first, in plain sh (an old Node may not even parse the installer), then
# unpacks the release beside the installed ones and hands over to config/release/installer.mjs.
# HELIOGRAPH_FS_ROOT, a folder standing for / (the tests' temporary root), prefixes every path.
set -eu
root="${HELIOGRAPH_FS_ROOT:-}"
releases="$root/opt/heliograph/releases"
get_node='curl -fsSL https://deb.nodesource.com/setup_24.x | sudo -E bash - && sudo apt-get install -y nodejs'

if ! command -v node >/dev/null 2>&1; then
  echo "Heliograph needs Node.js 22.18 or newer (24 recommended), and there is no node on the PATH." >&2
  echo "Node 24 from NodeSource: $get_node" >&2
  exit 1
fi
version=$(node -p process.versions.node)
major=${version%%.*}
minor=${version#*.}
minor=${minor%%.*}
# The floor of package.json's "engines" (test/install/readme.test.ts holds them together).
if [ "$major" -lt 22 ] || { [ "$major" -eq 22 ] && [ "$minor" -lt 18 ]; }; then
  echo "Heliograph needs Node.js 22.18 or newer (24 recommended); this is $version ($(command -v node))." >&2
  echo "Node 24 from NodeSource: $get_node" >&2
  exit 1
fi

if [ -z "$root" ] && [ "$(id -u)" -ne 0 ]; then
  echo "install.sh: it installs a system service: run it with sudo (sudo sh $0 ${1:-})" >&2
  exit 1
fi

here=$(cd "$(dirname "$0")" && pwd)
case "${1:-}" in
  rollback)
    exec node "$here/config/release/installer.mjs" rollback
    ;;
  "")
    # Run from an unpacked release folder.
    exec node "$here/config/release/installer.mjs" install "$here"
    ;;
  *)
    if [ ! -f "$1" ]; then
      echo "install.sh: $1 is not a file; give the release tarball (heliograph-<version>-linux-<arch>.tar.gz) or rollback" >&2
      exit 2
    fi
    mkdir -p "$releases"
    incoming=$(mktemp -d "$releases/.incoming-XXXXXX")
    if ! tar -xzf "$1" -C "$incoming" --strip-components=1 --no-same-owner; then
      rm -rf "$incoming"
      echo "install.sh: $1 could not be unpacked (cut short or not a release tarball?)" >&2
      exit 1
    fi
    exec node "$incoming/config/release/installer.mjs" install "$incoming"
    ;;
esac
