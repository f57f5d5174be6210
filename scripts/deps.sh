#!/bin/sh
# What sparkplan needs to build and test.  `sh scripts/deps.sh --check` (before the build)
# only looks: it names each missing library with its Debian package and exits 1, never
# touching the network.  Without --check (make deps, and so make run and make check) it
# installs what is missing with apt-get on Debian/Ubuntu (nothing, and no network, when
# everything is there); elsewhere it says what is needed.
#
# pkg-config module : Debian package.  The event-log code (src/input/evsource.c,
# src/parse/evload.c) links libzstd, liblz4, zlib, snappy, liblzf and cJSON.
LIBS="ncursesw:libncurses-dev termkey:libtermkey-dev check:check libzstd:libzstd-dev
liblz4:liblz4-dev zlib:zlib1g-dev snappy:libsnappy-dev liblzf:liblzf-dev libcjson:libcjson-dev"
TOOLS="pkg-config:pkg-config tmux:tmux"
PKGS="libncurses-dev libtermkey-dev check pkg-config tmux libzstd-dev liblz4-dev zlib1g-dev libsnappy-dev liblzf-dev libcjson-dev zstd"

missing=""
for t in $TOOLS; do
    command -v "${t%%:*}" >/dev/null 2>&1 || missing="$missing ${t#*:}"
done
if command -v pkg-config >/dev/null 2>&1; then
    for l in $LIBS; do
        pkg-config --exists "${l%%:*}" 2>/dev/null || missing="$missing ${l#*:}"
    done
else
    for l in $LIBS; do missing="$missing ${l#*:}"; done
fi
[ -z "$missing" ] && exit 0

if [ "$1" = "--check" ]; then
    echo "sparkplan: missing to build and test:$missing" >&2
    echo "sparkplan: (Debian/Ubuntu package names) install them with \`make deps\`" >&2
    exit 1
fi

if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
            echo "sparkplan: need root or sudo to install:$missing" >&2; exit 1
        fi
    fi
    echo "Installing build dependencies:$missing"
    $SUDO apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $PKGS >/dev/null || exit 1
    exit 0
fi
echo "sparkplan: missing:$missing (Debian/Ubuntu package names)" >&2
echo "sparkplan needs: a C11 compiler, make, pkg-config, ncursesw (wide-character ncurses)," >&2
echo "libtermkey and Check (tests), tmux (terminal tests), and for event logs libzstd, liblz4," >&2
echo "zlib, libsnappy, liblzf and cJSON (the zstd tool for the benchmark)." >&2
echo "On Debian/Ubuntu these are: $PKGS" >&2
exit 1
