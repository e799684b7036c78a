#!/bin/sh
# Hark's post-image step: the SD card image and the signed update bundle.
#
# Buildroot runs it as: post-image.sh BINARIES_DIR BOARD, with BOARD from
# BR2_ROOTFS_POST_SCRIPT_ARGS (rpi4-64, rpi5 or rpizero2w-64), and with
# BR2_CONFIG, TARGET_DIR, BUILD_DIR and BR2_EXTERNAL_HARK_PATH in the
# environment and the host tools on PATH.
#
# Output in BINARIES_DIR:
#   sdcard.img                 the whole card (genimage.cfg)
#   <compatible>-<version>.raucb
#                              the root filesystem as a signed RAUC bundle
#   manifest.json              what Hark's updater fetches first:
#                              {"version", "url", "size", "sha256", "compatible"}
set -eu

die() {
	echo "post-image.sh: $*" >&2
	exit 1
}

[ $# -ge 2 ] || die "usage: post-image.sh BINARIES_DIR BOARD"
BINARIES_DIR=$1
BOARD=$2
COMMON_DIR=$(cd "$(dirname "$0")" && pwd)
[ -f "$COMMON_DIR/../$BOARD/config.txt" ] || die "no board/$BOARD/config.txt: unknown board '$BOARD'"
: "${BR2_CONFIG:?BR2_CONFIG is not set}"
: "${TARGET_DIR:?TARGET_DIR is not set}"
: "${BR2_EXTERNAL_HARK_PATH:=$(cd "$COMMON_DIR/../.." && pwd)}"

# config_value NAME: the value of a string or bool option in the .config,
# unquoted, with $(BR2_EXTERNAL_HARK_PATH) expanded.
config_value() {
	sed -n "s/^$1=//p" "$BR2_CONFIG" | tail -n 1 |
		sed -e 's/^"\(.*\)"$/\1/' -e "s|\$(BR2_EXTERNAL_HARK_PATH)|$BR2_EXTERNAL_HARK_PATH|g"
}

# A JSON string needs no escaping when it is made of these characters.
check_plain() {
	case "$2" in
	"" | *[!A-Za-z0-9._+~-]*) die "$1 '$2' must be non-empty and use only A-Z a-z 0-9 . _ + ~ -" ;;
	esac
}

profile=$(config_value BR2_HARK_PROFILE)
compatible=$(config_value BR2_PACKAGE_HARK_SYSTEM_RAUC_COMPATIBLE)
keyring=$(config_value BR2_PACKAGE_HARK_SYSTEM_RAUC_KEYRING)
key=$(config_value BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_KEY)
cert=$(config_value BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_CERT)
[ -n "$profile" ] || die "BR2_HARK_PROFILE is not set"
[ -f "$BR2_EXTERNAL_HARK_PATH/board/$profile/config-overlays.txt" ] ||
	die "no board/$profile/config-overlays.txt for profile '$profile'"
[ -f "$TARGET_DIR/usr/share/hark/version" ] ||
	die "$TARGET_DIR/usr/share/hark/version is missing (is BR2_PACKAGE_HARK set?)"
version=$(cat "$TARGET_DIR/usr/share/hark/version")
check_plain version "$version"
# The form the update agent compares (device/update.ParseVersion).
printf '%s\n' "$version" | grep -Eq '^v?[0-9]+(\.[0-9]+)*([-+][A-Za-z0-9._+~-]*)?$' ||
	die "version '$version' is not a release number like 1.4.2 (BR2_PACKAGE_HARK_VERSION_STRING)"
check_plain compatible "$compatible"

# --- The boot partition -----------------------------------------------------
# Everything the firmware and U-Boot read, staged as ${rootpath}/boot for
# the boot.vfat image in genimage.cfg.
rootpath=$(mktemp -d)
trap 'rm -rf "$rootpath"' EXIT
boot=$rootpath/boot
mkdir -p "$boot"

for f in rpi-firmware/config.txt rpi-firmware/cmdline.txt u-boot.bin boot.scr rootfs.ext4; do
	[ -e "$BINARIES_DIR/$f" ] || die "$BINARIES_DIR/$f is missing"
done
cp -R "$BINARIES_DIR/rpi-firmware/." "$boot/"
dtbs=0
for f in "$BINARIES_DIR"/*.dtb; do
	[ -e "$f" ] || continue
	cp "$f" "$boot/"
	dtbs=$((dtbs + 1))
done
[ "$dtbs" -gt 0 ] || die "no device trees (*.dtb) in $BINARIES_DIR"
cp "$BINARIES_DIR/u-boot.bin" "$BINARIES_DIR/boot.scr" "$boot/"

# config.txt: the board's settings, then the microphone HAT's overlays.
{
	cat "$BINARIES_DIR/rpi-firmware/config.txt"
	printf '\n# Microphone HAT profile: %s\n' "$profile"
	cat "$BR2_EXTERNAL_HARK_PATH/board/$profile/config-overlays.txt"
} >"$boot/config.txt"

# --- The SD card image --------------------------------------------------------
genimage_tmp=${BUILD_DIR:-$rootpath}/genimage.tmp
rm -rf "$genimage_tmp"
genimage \
	--rootpath "$rootpath" \
	--tmppath "$genimage_tmp" \
	--inputpath "$BINARIES_DIR" \
	--outputpath "$BINARIES_DIR" \
	--config "$COMMON_DIR/genimage.cfg"
rm -rf "$genimage_tmp"

# --- The update bundle --------------------------------------------------------
if [ -z "$keyring" ] || [ -z "$key" ] || [ -z "$cert" ]; then
	die "set BR2_PACKAGE_HARK_SYSTEM_RAUC_KEYRING, _SIGNING_KEY and _SIGNING_CERT (buildroot/README.md, \"Signing keys\")"
fi

"$COMMON_DIR/bundle.sh" "$BINARIES_DIR/rootfs.ext4" "$compatible" "$version" \
	"$cert" "$key" "$keyring" "$BINARIES_DIR" ||
	die "the update bundle could not be made"

echo "post-image.sh: $BINARIES_DIR/sdcard.img, $BINARIES_DIR/$compatible-$version.raucb ($version, $compatible), manifest.json"
