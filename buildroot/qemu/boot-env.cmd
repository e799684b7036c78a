# The emulated board's part of the boot script. image.sh puts it in front
# of board/common/boot.cmd, the Pi's A/B logic, to make boot.scr on the
# boot partition. U-Boot is Debian's qemu_arm64 build (u-boot-qemu), which
# qemu starts as the machine's firmware; its distro boot finds boot.scr on
# the first, bootable, partition of the virtio disk and runs it.

# The disk: U-Boot's virtio 0. Linux names it vda, and a udev rule also
# mmcblk0 like the Pi's card (rootfs/etc/udev/rules.d/60-hark-card.rules).
hark_if=virtio
hark_dev=0

# The HAT. On a Pi the firmware applies the HAT's overlays to the device
# tree; here the emulated GPIO controller's lines get the names of the
# generic-i2s board's button (GPIO17) and LEDs (GPIO22, 23 and 24), which
# hark opens by name. Line 3 stays qemu's power button.
fdt addr ${fdt_addr}
fdt resize 1024
fdt set /pl061@9030000 gpio-line-names "GPIO17" "GPIO22" "GPIO23" "" "GPIO24" "" "" ""

# The environment. This U-Boot keeps its own in the emulated flash, which
# Debian's kernel cannot reach (it has no CFI flash driver), so fw_setenv
# could not either. BOOT_ORDER, BOOT_A_LEFT and BOOT_B_LEFT live instead
# where a Pi's U-Boot keeps its environment, in the same form: two copies
# of 16 KiB at 1 MiB and 1 MiB + 64 KiB (disk blocks 0x800 and 0x880),
# each a CRC32, a flag byte counting the saves, then the variables; the
# same offsets fw_env.config gives fw_printenv and fw_setenv. The newer
# copy with a good CRC is read; a save writes the other copy with the next
# count, so a power cut during a save leaves the copy before it.
setenv hark_env_a ${kernel_addr_r}
setexpr hark_env_b ${kernel_addr_r} + 0x10000
setexpr hark_env_t ${kernel_addr_r} + 0x20000
setexpr hark_env_t1 ${hark_env_t} + 1
setexpr hark_env_t4 ${hark_env_t} + 4
setexpr hark_env_u ${kernel_addr_r} + 0x30000
virtio read ${hark_env_a} 0x800 0x20
virtio read ${hark_env_b} 0x880 0x20

# hark_env_check COPY: the copy's flag in hark_env_flag, and hark_env_ok=1
# when its CRC is good. The CRC moves one byte up over the flag, so the
# copy reads as U-Boot's single-copy form, which env import -c checks.
setenv hark_env_check 'setexpr hark_env_p ${hark_env_c} + 4; setexpr.b hark_env_flag *${hark_env_p}; setexpr hark_env_p ${hark_env_c} + 1; cp.b ${hark_env_c} ${hark_env_u} 4; cp.b ${hark_env_u} ${hark_env_p} 4; setenv hark_env_ok 0; if env import -c ${hark_env_p} 0x3fff hark_env_none; then setenv hark_env_ok 1; fi'
setenv hark_env_c ${hark_env_a}; run hark_env_check; hark_ok_a=${hark_env_ok}; hark_flag_a=${hark_env_flag}
setenv hark_env_c ${hark_env_b}; run hark_env_check; hark_ok_b=${hark_env_ok}; hark_flag_b=${hark_env_flag}

# Which is newer: the flags count modulo 256.
hark_newer=
if test "${hark_ok_a}" = 1; then hark_newer=a; fi
if test "${hark_ok_b}" = 1; then
	if test -z "${hark_newer}"; then
		hark_newer=b
	else
		setexpr hark_d ${hark_flag_b} - ${hark_flag_a}
		setexpr hark_d ${hark_d} "&" 0xff
		setexpr hark_h ${hark_d} "&" 0x80
		if test "${hark_d}" != 0 && test "${hark_h}" = 0; then hark_newer=b; fi
	fi
fi
if test "${hark_newer}" = a; then
	setexpr hark_env_p ${hark_env_a} + 1
	env import -c ${hark_env_p} 0x3fff BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
	setexpr hark_env_next ${hark_flag_a} + 1
	setenv hark_env_blk 0x880
elif test "${hark_newer}" = b; then
	setexpr hark_env_p ${hark_env_b} + 1
	env import -c ${hark_env_p} 0x3fff BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT
	setexpr hark_env_next ${hark_flag_b} + 1
	setenv hark_env_blk 0x800
else
	echo "Hark: no saved boot state on the disk; starting afresh"
	setenv hark_env_next 1
	setenv hark_env_blk 0x800
fi
setexpr hark_env_next ${hark_env_next} "&" 0xff
if test -n "${hark_newer}"; then
	echo "Hark: boot state from copy ${hark_newer}: order ${BOOT_ORDER}, A ${BOOT_A_LEFT} left, B ${BOOT_B_LEFT} left"
fi

# boot.cmd runs this instead of saveenv: the three variables exported in
# the single-copy form one byte up, the CRC moved back down, the flag
# after it, and the copy written to the disk.
setenv hark_saveenv 'env export -c -s 0x3fff ${hark_env_t1} BOOT_ORDER BOOT_A_LEFT BOOT_B_LEFT; cp.b ${hark_env_t1} ${hark_env_u} 4; cp.b ${hark_env_u} ${hark_env_t} 4; mw.b ${hark_env_t4} ${hark_env_next}; virtio write ${hark_env_t} ${hark_env_blk} 0x20'

