#!/usr/bin/env bash
# Put segapp in the desktop's application menu and "Open with" list, for the current user
# (no root): packaging/segapp.desktop, with Exec set to the program, and the icon at every
# drawn size in the hicolor theme, under ${XDG_DATA_HOME:-~/.local/share}.
#
#   bash packaging/install-desktop.sh                 # the frozen app dist/segapp/segapp if built,
#                                                     # else `segapp` on PATH (pip install)
#   bash packaging/install-desktop.sh /opt/segapp/segapp
#   bash packaging/install-desktop.sh --remove
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
data=${XDG_DATA_HOME:-$HOME/.local/share}
desktop=$data/applications/segapp.desktop
sizes=(16 24 32 48 64 128 256)  # segapp/resources.py ICON_SIZES

if [ "${1:-}" = "--remove" ]; then
    rm -fv "$desktop"
    for s in "${sizes[@]}"; do rm -fv "$data/icons/hicolor/${s}x${s}/apps/segapp.png"; done
    exit 0
fi

exe=${1:-}
if [ -z "$exe" ]; then
    if [ -x "$root/dist/segapp/segapp" ]; then exe=$root/dist/segapp/segapp
    else exe=$(command -v segapp) || { echo "no segapp on PATH and no dist/segapp/segapp: give the program's path" >&2; exit 2; }
    fi
fi
exe=$(readlink -f "$exe")
[ -x "$exe" ] || { echo "not an executable: $exe" >&2; exit 2; }
case $exe in *[\"\`\$\\]*) echo "the path $exe has a character the Exec key cannot quote simply" >&2; exit 2;; esac

mkdir -p "$data/applications"
sed -e "s|^Exec=.*|Exec=\"$exe\" %f|" -e "s|^TryExec=.*|TryExec=$exe|" "$here/segapp.desktop" > "$desktop"
for s in "${sizes[@]}"; do
    install -D -m 644 "$root/segapp/assets/icon-$s.png" "$data/icons/hicolor/${s}x${s}/apps/segapp.png"
done
command -v update-desktop-database >/dev/null && update-desktop-database -q "$data/applications" || true
command -v gtk-update-icon-cache >/dev/null && gtk-update-icon-cache -q -t "$data/icons/hicolor" || true
echo "installed $desktop (Exec=$exe) and the icon in $data/icons/hicolor"
