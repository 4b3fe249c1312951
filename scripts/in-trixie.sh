#!/usr/bin/env bash
# Runs one command inside the Debian trixie root that scripts/setup.sh makes in build/trixie
# (Emscripten 3.1.69, clang 19, CMake 3.31; its binaryen needs trixie's glibc, so it cannot run on
# the bookworm host directly). Usage, from anywhere inside the repository:
#   bash scripts/in-trixie.sh emcmake cmake -S . -B build/wasm ...
# The repository is bind-mounted at the same path inside the root, so paths (and the build trees
# CMake writes) are the same inside and outside, and the command runs in the same folder.
#
# The mounts live in a private mount namespace (unshare --mount): they exist only for this
# command's processes and vanish with them, whatever way the command ends (even SIGKILL), so
# nothing is ever left mounted on the host and two builds can run at once. As root that is all;
# as another user, a user namespace that maps the caller to root (unshare --map-root-user) gives
# the same without sudo, and files written into the repository stay the caller's.
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd -P)
troot="$repo/build/trixie"
cwd=$(pwd -P)
if [ ! -f "$troot/.aw-toolchain" ]; then
  echo "in-trixie: no toolchain root at $troot: run 'bash scripts/setup.sh' first" >&2
  exit 1
fi
case "$cwd/" in
  "$repo"/*) ;;
  *) echo "in-trixie: run it from inside $repo (only the repository is visible in the root)" >&2; exit 1 ;;
esac
[ $# -gt 0 ] || { echo "usage: scripts/in-trixie.sh COMMAND [ARGS...]" >&2; exit 2; }

as_root=()
[ "$(id -u)" = 0 ] || as_root=(--map-root-user)
# A clean environment: the host's variables (NODE_EXTRA_CA_CERTS, NODE_PATH, ...) name host
# paths. HOME in /tmp: the root's own /root is not the caller's in a user namespace.
exec unshare "${as_root[@]}" --mount --propagation private -- bash -c '
  set -e
  troot=$1 repo=$2 cwd=$3; shift 3
  mount --rbind /proc "$troot/proc"
  mkdir -p "$troot$repo"
  mount --bind "$repo" "$troot$repo"
  exec chroot "$troot" /usr/bin/env -i PATH=/usr/local/bin:/usr/bin:/bin HOME=/tmp LANG=C.UTF-8 \
    TERM=dumb sh -c "cd \"\$0\" && exec \"\$@\"" "$cwd" "$@"
' in-trixie "$troot" "$repo" "$cwd" "$@"
