# Hark's A/B boot script. U-Boot runs it from the boot partition (see
# CONFIG_BOOTCOMMAND in uboot.fragment); Buildroot compiles it to boot.scr.
#
# The slot bookkeeping is the one RAUC's U-Boot backend expects:
#   BOOT_ORDER   the slots to try, in order ("A B": A first)
#   BOOT_A_LEFT  boot attempts left for slot A; BOOT_B_LEFT for B
# Every boot takes an attempt from the slot it boots and saves the
# environment before starting Linux. Once Hark is up and healthy, Linux
# has RAUC mark the slot good (hark health --mark-good), which gives the
# attempts back. A slot with no attempts left is skipped; when both are at 0,
# both get 3 again and the board resets. An update (rauc install) puts
# the new slot first with 3 attempts.
#
# Slot A is partition 2, slot B partition 3, each an ext4 root filesystem
# with its kernel in /boot/Image (and, for a kernel whose disk drivers are
# modules, an initramfs in /boot/initrd). The device tree is the one the
# firmware built from config.txt (with the HAT's overlays), at ${fdt_addr}.
#
# What differs between boards is set before this script runs, in script
# variables with the Pi's values as defaults:
#   hark_if, hark_dev  U-Boot's disk ("mmc" 0: the SD card)
#   hark_saveenv       an environment variable holding the commands that
#                      save the environment, for a U-Boot that keeps its own
#                      where Linux cannot reach it; unset, saveenv does
# The emulated board (buildroot/qemu/boot-env.cmd) sets all three.
if test -z "${hark_if}"; then hark_if=mmc; hark_dev=0; fi

# Defaults for a fresh card, whose environment is still U-Boot's built-in.
if test -z "${BOOT_ORDER}"; then setenv BOOT_ORDER "A B"; fi
if test -z "${BOOT_A_LEFT}"; then setenv BOOT_A_LEFT 3; fi
if test -z "${BOOT_B_LEFT}"; then setenv BOOT_B_LEFT 3; fi

# Script variables (not saved with the environment).
hark_slot=
hark_part=

for slot in ${BOOT_ORDER}; do
	if test -z "${hark_slot}" && test "${slot}" = "A" && test ${BOOT_A_LEFT} -gt 0; then
		setexpr BOOT_A_LEFT ${BOOT_A_LEFT} - 1
		hark_slot=A
		hark_part=2
	fi
	if test -z "${hark_slot}" && test "${slot}" = "B" && test ${BOOT_B_LEFT} -gt 0; then
		setexpr BOOT_B_LEFT ${BOOT_B_LEFT} - 1
		hark_slot=B
		hark_part=3
	fi
done

if test -z "${hark_slot}"; then
	echo "Hark: no slot has boot attempts left; giving A and B 3 each and resetting"
	setenv BOOT_A_LEFT 3
	setenv BOOT_B_LEFT 3
	if test -n "${hark_saveenv}"; then run hark_saveenv; else saveenv; fi
	reset
fi

echo "Hark: booting slot ${hark_slot} (A ${BOOT_A_LEFT} left, B ${BOOT_B_LEFT} left, order ${BOOT_ORDER})"
setenv bootargs
setenv hark_fw_bootargs
if test -n "${hark_saveenv}"; then run hark_saveenv; else saveenv; fi

hark_initrd=-
if load ${hark_if} ${hark_dev}:${hark_part} ${ramdisk_addr_r} /boot/initrd; then
	hark_initrd=${ramdisk_addr_r}:${filesize}
fi
if load ${hark_if} ${hark_dev}:${hark_part} ${kernel_addr_r} /boot/Image; then
	# Keep what the firmware put on the command line (cmdline.txt and its
	# own settings) and add the root filesystem and the slot for RAUC.
	fdt addr ${fdt_addr}
	fdt get value hark_fw_bootargs /chosen bootargs
	setenv bootargs "${hark_fw_bootargs} root=/dev/mmcblk0p${hark_part} rootfstype=ext4 ro rootwait rauc.slot=${hark_slot}"
	booti ${kernel_addr_r} ${hark_initrd} ${fdt_addr}
fi

# Loading or starting the kernel failed; the attempt is spent, so the
# next reset tries again and, in the end, the other slot.
echo "Hark: slot ${hark_slot} did not boot; resetting"
reset
