#!/usr/bin/env bash
# install-hark.sh ROOT REPO HARK_BIN VERSION MODEL PROFILE COMPATIBLE KEYRING
#
# Every Hark file into the root filesystem tree ROOT of the emulated board,
# from the same sources and to the same places as Buildroot's packages do
# on a Pi: package/hark/hark.mk (the program, its units, user, udev rules,
# hark.toml and asound.conf of the HAT PROFILE) and
# package/hark-system/hark-system.mk (RAUC's system.conf and keyring,
# fw_env.config, the data partition, watchdog, networking). The qemu
# directory's own rootfs/ (the emulated HAT and disk) goes on top.
# buildroot's tests check that this script installs what the two .mk
# files install.
set -euo pipefail

[ $# -eq 8 ] || {
	echo "usage: install-hark.sh ROOT REPO HARK_BIN VERSION MODEL PROFILE COMPATIBLE KEYRING" >&2
	exit 2
}
root=$1 repo=$2 hark_bin=$3 version=$4 model=$5 profile=$6 compatible=$7 keyring=$8
br=$repo/buildroot
pkg=$br/package/hark
sys=$br/package/hark-system/files
prof=$br/board/$profile
models=/usr/share/hark/models
units=$root/usr/lib/systemd/system

# --- package/hark ---------------------------------------------------------------
install -D -m 0755 "$hark_bin" "$root/usr/bin/hark"
mkdir -p "$root/usr/share/hark"
printf '%s\n' "$version" >"$root/usr/share/hark/version"
# The binary carries Home Assistant's intents (CC BY 4.0): their
# attribution ships with them.
install -D -m 0644 "$repo/locale/intent/data/README.md" "$root/usr/share/doc/hark/home-assistant-intents.md"
install -D -m 0644 "$prof/asound.conf" "$root/etc/asound.conf"
install -D -m 0644 "$prof/hark.toml" "$root/etc/hark/hark.toml"
# BR2_PACKAGE_HARK_WHISPER_MODEL: the model in the image, named in hark.toml.
install -D -m 0644 "$model" "$root$models/$(basename "$model")"
printf '\n[whisper]\nmodel = "%s"\n' "$models/$(basename "$model")" >>"$root/etc/hark/hark.toml"
if [ -f "$prof/mixer.sh" ]; then
	install -D -m 0755 "$prof/mixer.sh" "$root/usr/libexec/hark/hark-mixer"
fi
install -D -m 0755 "$repo/systemd/hark-format-data" "$root/usr/libexec/hark/hark-format-data"
install -D -m 0644 "$pkg/90-hark.rules" "$root/usr/lib/udev/rules.d/90-hark.rules"
for f in "$repo"/systemd/*.service "$repo"/systemd/*.timer; do
	install -D -m 0644 "$f" "$units/$(basename "$f")"
done
install -D -m 0644 "$pkg/hark-mixer.service" "$units/hark-mixer.service"
install -D -m 0644 "$pkg/50-hark.preset" "$root/usr/lib/systemd/system-preset/50-hark.preset"
# HARK_USERS: hark 850, in audio, gpio and spi.
for g in gpio spi; do
	grep -q "^$g:" "$root/etc/group" || groupadd -R "$root" --system "$g"
done
grep -q '^hark:' "$root/etc/group" || groupadd -R "$root" -g 850 hark
grep -q '^hark:' "$root/etc/passwd" ||
	useradd -R "$root" -r -u 850 -g hark -G audio,gpio,spi -d /var/lib/hark -M -s /usr/sbin/nologin \
		-c "Hark voice assistant" hark

# --- package/hark-system --------------------------------------------------------
mkdir -p "$root/etc/rauc" "$root/data"
sed "s/@COMPATIBLE@/$compatible/" "$sys/system.conf.in" >"$root/etc/rauc/system.conf"
install -D -m 0644 "$keyring" "$root/etc/rauc/keyring.pem"
install -D -m 0644 "$sys/fw_env.config" "$root/etc/fw_env.config"
for f in 80-hark-wired.network 80-hark-wireless.network; do
	install -D -m 0644 "$sys/$f" "$root/usr/lib/systemd/network/$f"
done
mkdir -p "$root/etc/wpa_supplicant"
ln -sf /data/network/wpa_supplicant-wlan0.conf "$root/etc/wpa_supplicant/wpa_supplicant-wlan0.conf"
for u in data.mount var-lib-hark.mount hark-data-dirs.service; do
	install -D -m 0644 "$sys/$u" "$units/$u"
done
install -D -m 0644 "$sys/rauc-data.conf" "$units/rauc.service.d/10-hark-data.conf"
install -D -m 0644 "$sys/wpa-supplicant-data.conf" "$units/wpa_supplicant@wlan0.service.d/10-hark-data.conf"
install -D -m 0644 "$sys/watchdog.conf" "$root/usr/lib/systemd/system.conf.d/10-hark-watchdog.conf"
install -D -m 0644 "$sys/40-hark-system.preset" "$root/usr/lib/systemd/system-preset/40-hark-system.preset"
# The box's own access point and captive page (HARK_SYSTEM_WIFI_UNITS);
# wpa_cli's socket is open to netdev (HARK_SYSTEM_USERS). The emulated
# board has no Wi-Fi: hark-wifi-prepare finds no wlan0 to start for, and
# hark-ap.path waits for a request that never comes.
install -D -m 0755 "$sys/hark-wifi-prepare" "$root/usr/libexec/hark/hark-wifi-prepare"
for u in hark-ap.path hark-ap.service hark-ap-dhcp.service hark-captive.socket; do
	install -D -m 0644 "$sys/$u" "$units/$u"
done
install -D -m 0644 "$sys/hark-wifi.conf" "$units/hark.service.d/20-hark-wifi.conf"
install -D -m 0644 "$sys/45-hark-wifi.preset" "$root/usr/lib/systemd/system-preset/45-hark-wifi.preset"
grep -q '^netdev:' "$root/etc/group" || groupadd -R "$root" --system netdev

# --- The emulated board ---------------------------------------------------------
cp -R --no-preserve=ownership "$br/qemu/rootfs/." "$root/"

# The presets' "enable" lines, as Buildroot's systemctl preset-all applies
# them; a unit the image does not have (wpa_supplicant, the mixer of
# another HAT) is skipped, as there.
for p in "$root"/usr/lib/systemd/system-preset/40-hark-system.preset "$root"/usr/lib/systemd/system-preset/45-hark-wifi.preset \
	"$root"/usr/lib/systemd/system-preset/50-hark.preset; do
	while read -r verb unit inst; do
		[ "$verb" = enable ] || continue
		[ -e "$units/$unit" ] || [ -e "$root/lib/systemd/system/$unit" ] || continue
		[ -z "$inst" ] || unit=${unit/@/@$inst}
		systemctl --root="$root" --quiet enable "$unit"
	done < <(sed 's/#.*//' "$p")
done

# /var is a tmpfs at boot (etc/fstab), filled from the factory copy by
# systemd-tmpfiles, as Buildroot's BR2_INIT_SYSTEMD_VAR_FACTORY does.
if [ ! -d "$root/usr/share/factory/var" ]; then
	mkdir -p "$root/usr/share/factory"
	mv "$root/var" "$root/usr/share/factory/var"
	mkdir -m 0755 "$root/var"
	mkdir -p "$root/usr/lib/tmpfiles.d"
	# /var/lib entry by entry: /var/lib already holds hark's mount point
	# when tmpfiles runs, and C copies nothing into a directory with files.
	for e in "$root"/usr/share/factory/var/* "$root"/usr/share/factory/var/lib/*; do
		e=${e#"$root"/usr/share/factory}
		[ "$e" != /var/lib ] || continue
		echo "C! $e - - - -"
	done >"$root/usr/lib/tmpfiles.d/hark-var-factory.conf"
fi
