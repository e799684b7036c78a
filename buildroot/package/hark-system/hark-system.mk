################################################################################
#
# hark-system
#
################################################################################

# No source to download: the files are in files/ beside this one.

HARK_SYSTEM_RAUC_COMPATIBLE = $(call qstrip,$(BR2_PACKAGE_HARK_SYSTEM_RAUC_COMPATIBLE))
HARK_SYSTEM_RAUC_KEYRING = $(call qstrip,$(BR2_PACKAGE_HARK_SYSTEM_RAUC_KEYRING))
HARK_SYSTEM_RAUC_SIGNING_KEY = $(call qstrip,$(BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_KEY))
HARK_SYSTEM_RAUC_SIGNING_CERT = $(call qstrip,$(BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_CERT))

# Stop before building anything when the keys are not set: an image
# without a keyring can never be updated, and the bundle is signed at the
# very end of a long build.
ifeq ($(BR2_PACKAGE_HARK_SYSTEM)$(BR_BUILDING),yy)
ifeq ($(HARK_SYSTEM_RAUC_COMPATIBLE),)
$(error BR2_PACKAGE_HARK_SYSTEM_RAUC_COMPATIBLE is empty; the hark_* defconfigs set it per board)
endif
ifeq ($(HARK_SYSTEM_RAUC_KEYRING),)
$(error BR2_PACKAGE_HARK_SYSTEM_RAUC_KEYRING is empty: set it to the CA certificate (PEM) that signs Hark update bundles; see buildroot/README.md, "Signing keys")
endif
ifeq ($(wildcard $(HARK_SYSTEM_RAUC_KEYRING)),)
$(error BR2_PACKAGE_HARK_SYSTEM_RAUC_KEYRING: $(HARK_SYSTEM_RAUC_KEYRING) does not exist)
endif
ifeq ($(HARK_SYSTEM_RAUC_SIGNING_KEY),)
$(error BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_KEY is empty: set it to the key that signs update bundles; see buildroot/README.md, "Signing keys")
endif
ifeq ($(filter pkcs11:%,$(HARK_SYSTEM_RAUC_SIGNING_KEY))$(wildcard $(HARK_SYSTEM_RAUC_SIGNING_KEY)),)
$(error BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_KEY: $(HARK_SYSTEM_RAUC_SIGNING_KEY) does not exist)
endif
ifeq ($(HARK_SYSTEM_RAUC_SIGNING_CERT),)
$(error BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_CERT is empty: set it to the certificate of the signing key; see buildroot/README.md, "Signing keys")
endif
ifeq ($(wildcard $(HARK_SYSTEM_RAUC_SIGNING_CERT)),)
$(error BR2_PACKAGE_HARK_SYSTEM_RAUC_SIGNING_CERT: $(HARK_SYSTEM_RAUC_SIGNING_CERT) does not exist)
endif
endif

HARK_SYSTEM_FILES = $(HARK_SYSTEM_PKGDIR)/files

define HARK_SYSTEM_INSTALL_TARGET_CMDS
	mkdir -p $(TARGET_DIR)/etc/rauc $(TARGET_DIR)/data
	sed 's/@COMPATIBLE@/$(HARK_SYSTEM_RAUC_COMPATIBLE)/' \
		$(HARK_SYSTEM_FILES)/system.conf.in > $(TARGET_DIR)/etc/rauc/system.conf
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_RAUC_KEYRING) $(TARGET_DIR)/etc/rauc/keyring.pem
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/fw_env.config $(TARGET_DIR)/etc/fw_env.config
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/80-hark-wired.network \
		$(TARGET_DIR)/usr/lib/systemd/network/80-hark-wired.network
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/80-hark-wireless.network \
		$(TARGET_DIR)/usr/lib/systemd/network/80-hark-wireless.network
	mkdir -p $(TARGET_DIR)/etc/wpa_supplicant
	ln -sf /data/network/wpa_supplicant-wlan0.conf \
		$(TARGET_DIR)/etc/wpa_supplicant/wpa_supplicant-wlan0.conf
	$(INSTALL) -D -m 0755 $(HARK_SYSTEM_FILES)/hark-wifi-prepare \
		$(TARGET_DIR)/usr/libexec/hark/hark-wifi-prepare
endef

# The box's own access point (hostapd, dnsmasq) and its captive page, for
# a board on no network: see device/network and buildroot/README.md.
HARK_SYSTEM_WIFI_UNITS = hark-ap.path hark-ap.service hark-ap-dhcp.service hark-captive.socket

# wpa_cli's control socket is open to the netdev group, hark among it.
define HARK_SYSTEM_USERS
	- - netdev -1 * - - - Wi-Fi control
endef

define HARK_SYSTEM_INSTALL_INIT_SYSTEMD
	$(foreach u,data.mount var-lib-hark.mount hark-data-dirs.service, \
		$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/$(u) \
			$(TARGET_DIR)/usr/lib/systemd/system/$(u)$(sep))
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/rauc-data.conf \
		$(TARGET_DIR)/usr/lib/systemd/system/rauc.service.d/10-hark-data.conf
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/wpa-supplicant-data.conf \
		$(TARGET_DIR)/usr/lib/systemd/system/wpa_supplicant@wlan0.service.d/10-hark-data.conf
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/watchdog.conf \
		$(TARGET_DIR)/usr/lib/systemd/system.conf.d/10-hark-watchdog.conf
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/40-hark-system.preset \
		$(TARGET_DIR)/usr/lib/systemd/system-preset/40-hark-system.preset
	$(foreach u,$(HARK_SYSTEM_WIFI_UNITS), \
		$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/$(u) \
			$(TARGET_DIR)/usr/lib/systemd/system/$(u)$(sep))
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/hark-wifi.conf \
		$(TARGET_DIR)/usr/lib/systemd/system/hark.service.d/20-hark-wifi.conf
	$(INSTALL) -D -m 0644 $(HARK_SYSTEM_FILES)/45-hark-wifi.preset \
		$(TARGET_DIR)/usr/lib/systemd/system-preset/45-hark-wifi.preset
endef

$(eval $(generic-package))
