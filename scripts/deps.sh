#!/bin/sh
# Install what sparkplan needs to build and test, on Debian/Ubuntu; elsewhere say what is needed.
PKGS="libncurses-dev libtermkey-dev check pkg-config tmux libzstd-dev liblz4-dev zlib1g-dev libsnappy-dev liblzf-dev libcjson-dev zstd"
missing=""
command -v pkg-config >/dev/null 2>&1 || missing="yes"
if [ -z "$missing" ]; then
    pkg-config --exists ncursesw termkey check libzstd liblz4 zlib snappy libcjson liblzf \
        2>/dev/null || missing="yes"
fi
command -v tmux >/dev/null 2>&1 || missing="yes"
[ -z "$missing" ] && exit 0

if command -v apt-get >/dev/null 2>&1; then
    SUDO=""
    if [ "$(id -u)" != 0 ]; then
        if command -v sudo >/dev/null 2>&1; then SUDO=sudo; else
            echo "sparkplan: need root or sudo to install: $PKGS" >&2; exit 1
        fi
    fi
    echo "Installing build dependencies: $PKGS"
    $SUDO apt-get update -qq && \
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq $PKGS >/dev/null || exit 1
    exit 0
fi
echo "sparkplan needs: a C11 compiler, make, pkg-config, ncursesw (wide-character ncurses)," >&2
echo "libtermkey and Check (tests), tmux (terminal tests), and for event logs libzstd, liblz4," >&2
echo "zlib, libsnappy, liblzf and cJSON (the zstd tool for the benchmark)." >&2
echo "On Debian/Ubuntu these are: $PKGS" >&2
exit 1
