#!/bin/sh
# Hark's post-build step: checks on the target tree that would otherwise
# only show on a board that does not boot.
#
# Buildroot runs it as: post-build.sh TARGET_DIR BOARD.
set -eu

die() {
	echo "post-build.sh: $*" >&2
	exit 1
}

[ $# -ge 1 ] || die "usage: post-build.sh TARGET_DIR [BOARD]"
TARGET_DIR=$1

# U-Boot loads the kernel from the slot's own /boot (boot.cmd).
[ -f "$TARGET_DIR/boot/Image" ] ||
	die "no /boot/Image in the root filesystem: BR2_LINUX_KERNEL_INSTALL_TARGET must be set"

# The root filesystem is mounted read-only; RAUC writes it whole.
grep -Eq '^/dev/root[[:space:]]+/[[:space:]].*[[:space:]]ro[[:space:]]' "$TARGET_DIR/etc/fstab" ||
	die "/etc/fstab does not mount / read-only: unset BR2_TARGET_GENERIC_REMOUNT_ROOTFS_RW"

# RAUC's U-Boot backend needs both tools and the environment's location.
for f in usr/sbin/fw_printenv usr/sbin/fw_setenv etc/fw_env.config etc/rauc/system.conf etc/rauc/keyring.pem; do
	[ -e "$TARGET_DIR/$f" ] || die "/$f is missing from the root filesystem"
done
