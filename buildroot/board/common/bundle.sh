#!/bin/sh
# bundle.sh ROOTFS COMPATIBLE VERSION CERT KEY KEYRING OUTDIR
#
# The root filesystem image ROOTFS (ext4) as a signed RAUC bundle (verity
# format) in OUTDIR, named COMPATIBLE-VERSION.raucb, checked against
# KEYRING, and OUTDIR/manifest.json beside it for Hark's update agent:
# {"version", "url", "size", "sha256", "compatible"}. Both image builders
# use it: post-image.sh (Buildroot, the Pi) and qemu/image.sh (the
# emulated board). rauc, mksquashfs and sha256sum must be on PATH.
set -eu

die() {
	echo "bundle.sh: $*" >&2
	exit 1
}

[ $# -eq 7 ] || die "usage: bundle.sh ROOTFS COMPATIBLE VERSION CERT KEY KEYRING OUTDIR"
rootfs=$1 compatible=$2 version=$3 cert=$4 key=$5 keyring=$6 outdir=$7
[ -f "$rootfs" ] || die "$rootfs is missing"

bundledir=$(mktemp -d)
trap 'rm -rf "$bundledir"' EXIT
cat >"$bundledir/manifest.raucm" <<MANIFEST
[update]
compatible=$compatible
version=$version

[bundle]
format=verity

[image.rootfs]
filename=rootfs.ext4
MANIFEST
ln -L "$rootfs" "$bundledir/rootfs.ext4" 2>/dev/null ||
	cp -L "$rootfs" "$bundledir/rootfs.ext4"

bundle_name=$compatible-$version.raucb
rm -f "$outdir/$compatible"-*.raucb "$outdir/manifest.json"
rauc bundle --cert="$cert" --key="$key" "$bundledir" "$outdir/$bundle_name"

# The device will check the bundle against its keyring: do it now, so a
# signing certificate the keyring does not trust fails the build.
rauc info --keyring="$keyring" "$outdir/$bundle_name" >/dev/null ||
	die "the bundle's signature does not verify against $keyring"

size=$(wc -c <"$outdir/$bundle_name" | tr -d ' ')
sha256=$(sha256sum "$outdir/$bundle_name" | cut -d ' ' -f 1)
printf '{"version": "%s", "url": "%s", "size": %s, "sha256": "%s", "compatible": "%s"}\n' \
	"$version" "$bundle_name" "$size" "$sha256" "$compatible" >"$outdir/manifest.json"
echo "bundle.sh: $outdir/$bundle_name ($version, $compatible), manifest.json"
