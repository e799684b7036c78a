#!/usr/bin/env bash
# make image-qemu: Hark's SD card image for an emulated board,
# qemu-system-aarch64 -M virt, built from Debian's arm64 packages and the
# same Hark files the Buildroot recipe installs on a Pi (buildroot/README.md,
# "The emulated board").
#
# Output in $QEMU_OUT (build/qemu):
#   sdcard.img        the card: the Pi's partitions (board/common/genimage.cfg)
#   rootfs.ext4       the root filesystem in slots A and B
#   hark-qemu-arm64-<version>.raucb, manifest.json
#                     the same root filesystem as a signed update bundle
#   u-boot.bin        the firmware qemu starts (Debian's u-boot-qemu)
#   keys/             the development CA the image trusts, and its signer
#
# The Debian base (debootstrap, then its second stage run inside the
# emulated machine: no binfmt handler on this one) is cached as
# build/qemu/cache/base-<key>.tar, keyed by the package list, the kernel,
# its modules and the second-stage script.
#
# Environment: HARK_BIN (the arm64 hark, with whisper.cpp), HARK_VERSION
# (its version), QEMU_OUT, HARK_MODEL (the whisper model baked in),
# QEMU_KEYS (a directory with ca.cert.pem, signing.key.pem and
# signing.cert.pem; made when missing), QEMU_BUNDLE_ONLY=1 (the root
# filesystem and its bundle, no card), QEMU_CACHE (the cache's directory),
# QEMU_BASE_CHECK=1 (build nothing: exit 0 when the Debian base is cached,
# 1 with the reason when it is not; what CI asks before its short boot).
# Needs root (the tree's owners), debootstrap, qemu-system-aarch64,
# genimage, mkimage, rauc, mkfs.ext4 and apt-get download for arm64.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
br=$(cd "$here/.." && pwd)
repo=$(cd "$br/.." && pwd)
out=${QEMU_OUT:-$repo/build/qemu}
cache=${QEMU_CACHE:-$repo/build/qemu/cache}
hark_bin=${HARK_BIN:-$repo/bin/linux-pi4-whisper/hark}
version=${HARK_VERSION:-$("$br/package/hark/version.sh" "$repo")}
model=${HARK_MODEL:-$repo/../shared/models/for-tests-ggml-tiny.en.bin}
keys=${QEMU_KEYS:-$out/keys}
# Absolute: the chroot tools (groupadd --root) refuse relative paths, and
# make passes its own relative to the repository.
out=$(realpath -m "$out") cache=$(realpath -m "$cache") hark_bin=$(realpath -m "$hark_bin")
model=$(realpath -m "$model") keys=$(realpath -m "$keys")
compatible=hark-qemu-arm64
profile=generic-i2s
suite=bookworm
uboot=/usr/lib/u-boot/qemu_arm64/u-boot.bin

say() { echo "image-qemu: $*"; }
die() {
	echo "image-qemu: $*" >&2
	exit 1
}

[ "$(id -u)" -eq 0 ] || die "needs root (the root filesystem's owners, debootstrap)"
for t in debootstrap qemu-system-aarch64 genimage mkimage rauc mksquashfs mkfs.ext4 apt-get dpkg-deb cpio openssl; do
	command -v "$t" >/dev/null || die "$t is missing (.ci/deps installs it)"
done
[ -f "$uboot" ] || die "$uboot is missing (apt-get install u-boot-qemu)"
check=${QEMU_BASE_CHECK:-}
[ -n "$check" ] || [ -x "$hark_bin" ] || die "$hark_bin is missing: make cross-whisper-pi4 (or set HARK_BIN)"
[ -n "$check" ] || [ -f "$model" ] || die "the whisper model $model is missing (set HARK_MODEL)"
printf '%s\n' "$version" | grep -Eq '^v?[0-9]+(\.[0-9]+)*([-+][A-Za-z0-9._+~-]*)?$' ||
	die "version '$version' is not a release number like 1.4.2"

mkdir -p "$out" "$cache"
work=$(mktemp -d "$out/work.XXXXXX")
progress=
# shellcheck disable=SC2317 # called by the trap
cleanup() {
	[ -z "$progress" ] || kill "$progress" 2>/dev/null || true
	rm -rf "$work"
}
trap cleanup EXIT

# listed FILE: the first word of each line, without comments.
listed() { sed -e 's/#.*//' "$1" | awk 'NF {print $1}'; }

# --- Debian's kernel and busybox, as .debs ------------------------------------
kpkg=$(apt-cache depends linux-image-arm64:arm64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
kpkg=${kpkg%:arm64}
[ -n "$kpkg" ] || die "apt-cache knows no linux-image-arm64:arm64 (dpkg --add-architecture arm64; apt-get update)"
kver=${kpkg#linux-image-}
debs=$cache/debs
mkdir -p "$debs"
fetch_deb() { # package[:arch] -> path of the .deb
	local name=${1%:*}
	local f
	f=$(find "$debs" -maxdepth 1 -name "${name}_*_arm64.deb" | head -n 1)
	if [ -z "$f" ]; then
		(cd "$debs" && apt-get download -q "$1" >/dev/null 2>&1) || die "apt-get download $1 failed"
		f=$(find "$debs" -maxdepth 1 -name "${name}_*_arm64.deb" | head -n 1)
	fi
	echo "$f"
}
kdeb=$(fetch_deb "$kpkg:arm64")
bbdeb=$(fetch_deb busybox-static:arm64)
kdir=$cache/kernel-$kver
if [ ! -f "$kdir/boot/vmlinuz-$kver" ]; then
	say "unpacking $(basename "$kdeb")"
	rm -rf "$kdir" && mkdir -p "$kdir"
	dpkg-deb -x "$kdeb" "$kdir"
fi
kmods=$kdir/lib/modules/$kver

# Each module's file, by name; its dependencies are its own depends= field.
declare -A mod_path=()
while IFS= read -r f; do
	n=${f##*/}
	n=${n%.ko}
	mod_path[${n//-/_}]=$f
done < <(cd "$kmods" && find kernel -name '*.ko')
declare -A mod_seen=()
mod_order=()
add_module() {
	local n=${1//-/_} p deps d
	[ -z "${mod_seen[$n]:-}" ] || return 0
	mod_seen[$n]=1
	p=${mod_path[$n]:-}
	if [ -z "$p" ]; then
		grep -q "/${1}.ko\$\|/${n}.ko\$" "$kmods/modules.builtin" 2>/dev/null && return 0
		die "kernel module $1 is not in $kpkg"
	fi
	deps=$(tr '\0' '\n' <"$kmods/$p" | sed -n 's/^depends=//p' | head -n 1)
	for d in ${deps//,/ }; do
		add_module "$d"
	done
	mod_order+=("$p")
}
# modules_with_deps NAME...: mod_order is the module files (relative to
# $kmods) in load order, dependencies first.
modules_with_deps() {
	mod_seen=()
	mod_order=()
	for m in "$@"; do add_module "$m"; done
}
mapfile -t root_modules < <(listed "$here/modules")
mapfile -t initrd_modules < <(sed -e 's/#.*//' "$here/modules" | awk '$2 == "initrd" {print $1}')

# --- The initramfs ------------------------------------------------------------
initrd=$cache/initrd-$kver-$(cat "$here/init" "$here/modules" | sha256sum | cut -c1-12).cpio.gz
if [ ! -f "$initrd" ]; then
	say "initramfs for $kver: busybox and ${initrd_modules[*]}"
	ird=$work/initrd
	mkdir -p "$ird/bin" "$ird/modules"
	dpkg-deb --fsys-tarfile "$bbdeb" | tar -x -C "$work" ./bin/busybox
	cp "$work/bin/busybox" "$ird/bin/busybox"
	ln -s busybox "$ird/bin/sh"
	cp "$here/init" "$ird/init"
	: >"$ird/modules.order"
	modules_with_deps "${initrd_modules[@]}"
	for p in "${mod_order[@]}"; do
		cp "$kmods/$p" "$ird/modules/"
		basename "$p" >>"$ird/modules.order"
	done
	(cd "$ird" && find . | LC_ALL=C sort | cpio -o -H newc --quiet | gzip -9) >"$initrd.tmp"
	mv "$initrd.tmp" "$initrd"
fi

# --- The Debian base, cached --------------------------------------------------
mirror=$(
	{ cat /etc/apt/sources.list.d/*.sources 2>/dev/null | awk '$1 == "URIs:" {print $2}'
	  awk '$1 == "deb" {print $2}' /etc/apt/sources.list 2>/dev/null; } | grep -v security | head -n1 || true
)
[ -n "$mirror" ] || die "no Debian mirror in this machine's apt sources"
packages=$(listed "$here/packages" | paste -sd, -)
key=$( { echo "$suite $kpkg $(basename "$kdeb")"; listed "$here/packages"; cat "$here/modules" "$here/stage2"; } | sha256sum | cut -c1-16)
base=$cache/base-$key.tar
if [ -n "$check" ]; then
	[ -f "$base" ] || die "no Debian $suite arm64 base for this package list in $cache (base-$key.tar): make image-qemu QEMU_CACHE=$cache builds it, 30 to 60 minutes under emulation"
	say "the Debian base is cached: $base"
	exit 0
fi

# stage2_boot DISK TAROUT LOG: the emulated machine with Debian's kernel
# and the initramfs started by qemu itself (no U-Boot), for the second
# stage. Under emulation on two busy cores it took 30 to 60 minutes
# (QEMU_STAGE2_TIMEOUT bounds it).
stage2_boot() {
	local disk=$1 tarout=$2 log=$3
	timeout "${QEMU_STAGE2_TIMEOUT:-3h}" qemu-system-aarch64 -M virt -cpu cortex-a72 -smp 2 -m 1024 -nographic -no-reboot \
		-kernel "$kdir/boot/vmlinuz-$kver" -initrd "$initrd" \
		-append "root=/dev/vda rw init=/hark-stage2 console=ttyAMA0 panic=-1" \
		-drive "file=$disk,format=raw,if=virtio,cache=unsafe" \
		-drive "file=$tarout,format=raw,if=virtio,cache=unsafe" \
		-nic none \
		</dev/null >"$log" 2>&1 || true
}

if [ ! -f "$base" ]; then
	say "Debian $suite arm64 base: debootstrap --foreign ($packages)"
	root=$work/base
	mkdir -p "$cache/debootstrap"
	debootstrap --foreign --arch=arm64 --variant=minbase --include="$packages" \
		--cache-dir="$cache/debootstrap" \
		"$suite" "$root" "$mirror" >"$work/debootstrap.log" 2>&1 || {
		tail -n 20 "$work/debootstrap.log" >&2
		die "debootstrap --foreign failed"
	}
	# No documentation or translations: a smaller root filesystem.
	mkdir -p "$root/etc/dpkg/dpkg.cfg.d"
	cat >"$root/etc/dpkg/dpkg.cfg.d/01-hark-small" <<'EOF'
path-exclude=/usr/share/doc/*
path-include=/usr/share/doc/*/copyright
path-exclude=/usr/share/man/*
path-exclude=/usr/share/info/*
path-exclude=/usr/share/locale/*
path-exclude=/usr/share/lintian/*
EOF
	# The kernel modules (and what they need), for the second stage's depmod.
	modules_with_deps "${root_modules[@]}"
	for p in "${mod_order[@]}"; do
		install -D -m 0644 "$kmods/$p" "$root/lib/modules/$kver/$p"
	done
	cp "$kmods"/modules.builtin* "$kmods/modules.order" "$root/lib/modules/$kver/"
	echo "$kver" >"$root/hark-kernel-version"
	install -m 0755 "$here/stage2" "$root/hark-stage2"
	say "second stage inside the emulated machine (15 to 60 minutes under emulation; cached after)"
	truncate -s 2G "$work/stage.ext4"
	mkfs.ext4 -q -F -d "$root" "$work/stage.ext4"
	rm -rf "$root"
	truncate -s 1G "$work/tar.out"
	start=$(date +%s)
	# Every few minutes, where the second stage is.
	(
		while sleep 300; do
			say "  $(($(date +%s) - start)) s: $(tr -d '\r' <"$work/stage2.log" | grep -E '^(I:|hark-stage2:)' | tail -n 1)"
		done
	) &
	progress=$!
	stage2_boot "$work/stage.ext4" "$work/tar.out" "$work/stage2.log"
	kill "$progress" 2>/dev/null || true
	progress=
	if ! grep -q '^hark-stage2: ok' "$work/stage2.log"; then
		tail -n 40 "$work/stage2.log" >&2
		die "the second stage failed (log above)"
	fi
	say "second stage done in $(($(date +%s) - start)) s"
	mkdir "$work/x"
	tar -C "$work/x" --numeric-owner -xf "$work/tar.out"
	tar -C "$work/x" --numeric-owner -cf "$base.tmp" .
	mv "$base.tmp" "$base"
	rm -rf "$work/x" "$work/tar.out" "$work/stage.ext4"
fi
say "base: $base"

# --- Keys -----------------------------------------------------------------------
if [ ! -f "$keys/ca.cert.pem" ]; then
	say "a development CA and signer in $keys (buildroot/README.md, \"Signing keys\")"
	mkdir -p "$keys"
	openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$keys/ca.key.pem" \
		-out "$keys/ca.cert.pem" -subj "/CN=Hark emulated board CA" -days 3650 2>/dev/null
	openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$keys/signing.key.pem" \
		-out "$keys/signing.csr" -subj "/CN=Hark emulated board signer" 2>/dev/null
	openssl x509 -req -in "$keys/signing.csr" -CA "$keys/ca.cert.pem" -CAkey "$keys/ca.key.pem" \
		-CAcreateserial -out "$keys/signing.cert.pem" -days 1825 2>/dev/null
fi

# --- The root filesystem: the base and every Hark file --------------------------
say "root filesystem $version"
root=$work/rootfs
mkdir -p "$root"
tar -C "$root" --numeric-owner -xf "$base"
# The mount points the base's tar left out (the second stage's own /dev,
# /proc, /sys and /run were not part of the tree).
mkdir -p "$root/dev" "$root/proc" "$root/sys" "$root/run" "$root/tmp"
chmod 1777 "$root/tmp"
"$here/install-hark.sh" "$root" "$repo" "$hark_bin" "$version" "$model" "$profile" "$compatible" "$keys/ca.cert.pem"
# Under emulation the model's test load takes minutes (install-hark.sh
# ended hark.toml with its [whisper] section).
echo 'load_timeout = "20m"' >>"$root/etc/hark/hark.toml"
# The kernel and the initramfs U-Boot loads from the slot (boot.cmd).
install -D -m 0644 "$kdir/boot/vmlinuz-$kver" "$root/boot/Image"
install -D -m 0644 "$initrd" "$root/boot/initrd"

# The root filesystem image: its contents and a fifth of room, for a
# rebuild that grows a little (RAUC writes it into 1 GiB slots).
used=$(du -s -B1M "$root" | cut -f1)
size=$((used + used / 5 + 32))
rm -f "$out/rootfs.ext4"
mkfs.ext4 -q -F -L hark-root -m 0 -i 8192 -d "$root" "$out/rootfs.ext4" "${size}M"
say "rootfs.ext4: ${size} MiB"

"$br/board/common/bundle.sh" "$out/rootfs.ext4" "$compatible" "$version" \
	"$keys/signing.cert.pem" "$keys/signing.key.pem" "$keys/ca.cert.pem" "$out" >/dev/null
say "$out/$compatible-$version.raucb"
[ "${QEMU_BUNDLE_ONLY:-}" != 1 ] || exit 0

# --- The card -------------------------------------------------------------------
# boot.scr: the emulated board's part, then the Pi's A/B logic as it is.
bootfs=$work/bootfs
mkdir -p "$bootfs/boot"
cat "$here/boot-env.cmd" "$br/board/common/boot.cmd" >"$work/boot.cmd"
mkimage -A arm64 -T script -C none -n "Hark A/B boot" -d "$work/boot.cmd" "$bootfs/boot/boot.scr" >/dev/null
cp "$out/rootfs.ext4" "$work/rootfs.ext4"
rm -f "$out/sdcard.img"
MTOOLS_SKIP_CHECK=1 genimage --rootpath "$bootfs" --tmppath "$work/genimage" --inputpath "$work" \
	--outputpath "$work" --config "$br/board/common/genimage.cfg" >"$work/genimage.log" 2>&1 || {
	cat "$work/genimage.log" >&2
	die "genimage failed"
}
mv "$work/sdcard.img" "$out/sdcard.img"
cp "$uboot" "$out/u-boot.bin"
say "$out/sdcard.img ($(du -h --apparent-size "$out/sdcard.img" | cut -f1), $(du -h "$out/sdcard.img" | cut -f1) used), version $version"
