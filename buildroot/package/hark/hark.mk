################################################################################
#
# hark
#
################################################################################

# The source is this repository: the BR2_EXTERNAL tree is its buildroot/
# directory. As a local package it is copied (rsync) into the build
# directory; `make hark-rebuild` picks up changes.
HARK_SITE = $(realpath $(BR2_EXTERNAL_HARK_PATH)/..)
HARK_SITE_METHOD = local
# Build outputs and this tree are not part of the Go module's build.
HARK_OVERRIDE_SRCDIR_RSYNC_EXCLUSIONS = \
	--exclude=/bin --exclude=/build --exclude=/buildroot

HARK_GOMOD = github.com/harkbox/hark
HARK_BUILD_TARGETS = cmd/hark
HARK_TAGS = whisper alsa
HARK_DEPENDENCIES = whisper-cpp alsa-lib espeak

# The version hark reports and the update bundle carries; version.sh
# derives it from git in the form the update agent compares.
ifeq ($(BR2_PACKAGE_HARK),y)
HARK_BUILD_VERSION := $(or \
	$(call qstrip,$(BR2_PACKAGE_HARK_VERSION_STRING)), \
	$(shell $(BR2_EXTERNAL_HARK_PATH)/package/hark/version.sh $(HARK_SITE)), \
	0.0.0-dev)
endif
HARK_LDFLAGS = -X main.version=$(HARK_BUILD_VERSION)

# pipeline/whisper links -lwhisper -lggml -lggml-cpu -lggml-base -lstdc++
# -lm -fopenmp and device/alsa -lasound: headers and libraries come from
# the staging directory (whisper-cpp installs its static libraries there).
# HOST_GO_TARGET_ENV sets CGO_CFLAGS and CGO_LDFLAGS first; these win.
HARK_GO_ENV = \
	CGO_CFLAGS="$(subst -g3,-g2,$(TARGET_CFLAGS)) -I$(STAGING_DIR)/usr/include" \
	CGO_LDFLAGS="$(TARGET_LDFLAGS) -L$(STAGING_DIR)/usr/lib"

# Vendoring. Buildroot builds Go packages with -mod=vendor and no network,
# and vendors a downloaded tarball in its download step; a local package
# has no download step, so the module tree is vendored here, just before
# each build (hark-rebuild included, so a changed go.mod is picked up),
# with Buildroot's host Go (the rsync step may run before it exists). A
# vendor/ directory in the repository is used as it is (fully offline
# builds: run `go mod vendor` there first). Otherwise
# `go mod vendor` fetches the modules through HARK_GOPROXY (default: the
# GOPROXY environment variable, else proxy.golang.org) into a module cache
# kept in Buildroot's download directory, so a rebuild needs no network;
# HARK_GOPROXY=off makes a rebuild fail instead of reaching out.
HARK_GOPROXY ?= $(if $(GOPROXY),$(GOPROXY),https://proxy.golang.org$(comma)direct)

define HARK_VENDOR_MODULES
	if [ -f $(HARK_SITE)/vendor/modules.txt ]; then \
		echo "hark: building with the repository's vendor/ directory"; \
	else \
		mkdir -p $(HARK_DL_DIR)/go-mod && \
		cd $(@D) && \
		$(HOST_GO_COMMON_ENV) \
			GOFLAGS=-modcacherw \
			GOPROXY="$(HARK_GOPROXY)" \
			GOMODCACHE=$(HARK_DL_DIR)/go-mod \
			$(GO_BIN) mod vendor || { \
			echo "hark: 'go mod vendor' failed. Without network, run 'go mod vendor' in $(HARK_SITE)"; \
			echo "hark: or point HARK_GOPROXY at a reachable module proxy; see buildroot/README.md."; \
			exit 1; }; \
	fi
endef
HARK_PRE_BUILD_HOOKS += HARK_VENDOR_MODULES

# The microphone HAT profile (top-level Hark menu) picks the board files.
HARK_PROFILE = $(call qstrip,$(BR2_HARK_PROFILE))
HARK_PROFILE_DIR = $(BR2_EXTERNAL_HARK_PATH)/board/$(HARK_PROFILE)

HARK_WHISPER_MODEL = $(call qstrip,$(BR2_PACKAGE_HARK_WHISPER_MODEL))
HARK_VAD_MODEL = $(call qstrip,$(BR2_PACKAGE_HARK_VAD_MODEL))
HARK_MODELS_DIR = /usr/share/hark/models

HARK_UPDATE_MANIFEST = $(call qstrip,$(BR2_PACKAGE_HARK_UPDATE_MANIFEST))
ifneq ($(HARK_UPDATE_MANIFEST),)
define HARK_INSTALL_UPDATE_SECTION
	printf '\n[update]\nmanifest = "%s"\n' '$(HARK_UPDATE_MANIFEST)' \
		>> $(TARGET_DIR)/etc/hark/hark.toml
endef
endif

ifneq ($(HARK_WHISPER_MODEL)$(HARK_VAD_MODEL),)
define HARK_INSTALL_WHISPER_SECTION
	printf '\n[whisper]\n' >> $(TARGET_DIR)/etc/hark/hark.toml
endef
endif

ifneq ($(HARK_WHISPER_MODEL),)
define HARK_INSTALL_WHISPER_MODEL
	$(INSTALL) -D -m 0644 $(HARK_WHISPER_MODEL) \
		$(TARGET_DIR)$(HARK_MODELS_DIR)/$(notdir $(HARK_WHISPER_MODEL))
	printf 'model = "%s"\n' $(HARK_MODELS_DIR)/$(notdir $(HARK_WHISPER_MODEL)) \
		>> $(TARGET_DIR)/etc/hark/hark.toml
endef
endif

ifneq ($(HARK_VAD_MODEL),)
define HARK_INSTALL_VAD_MODEL
	$(INSTALL) -D -m 0644 $(HARK_VAD_MODEL) \
		$(TARGET_DIR)$(HARK_MODELS_DIR)/$(notdir $(HARK_VAD_MODEL))
	printf 'vad_model = "%s"\n' $(HARK_MODELS_DIR)/$(notdir $(HARK_VAD_MODEL)) \
		>> $(TARGET_DIR)/etc/hark/hark.toml
endef
endif

# Hark runs "espeak-ng"; Buildroot packages espeak, whose command line is
# the same for what Hark asks (--stdout --stdin -z -b 1 -s -p -v).
define HARK_INSTALL_ESPEAK_NG_LINK
	if [ ! -e $(TARGET_DIR)/usr/bin/espeak-ng ] && [ -e $(TARGET_DIR)/usr/bin/espeak ]; then \
		ln -sf espeak $(TARGET_DIR)/usr/bin/espeak-ng; \
	fi
endef

define HARK_INSTALL_TARGET_CMDS
	$(INSTALL) -D -m 0755 $(@D)/bin/hark $(TARGET_DIR)/usr/bin/hark
	mkdir -p $(TARGET_DIR)/usr/share/hark
	printf '%s\n' '$(HARK_BUILD_VERSION)' > $(TARGET_DIR)/usr/share/hark/version
	# The sentence templates compiled into hark are Home Assistant's
	# intents (CC BY 4.0): their attribution ships with them.
	$(INSTALL) -D -m 0644 $(@D)/locale/intent/data/README.md \
		$(TARGET_DIR)/usr/share/doc/hark/home-assistant-intents.md
	$(INSTALL) -D -m 0644 $(HARK_PROFILE_DIR)/asound.conf $(TARGET_DIR)/etc/asound.conf
	$(INSTALL) -D -m 0644 $(HARK_PROFILE_DIR)/hark.toml $(TARGET_DIR)/etc/hark/hark.toml
	$(HARK_INSTALL_WHISPER_SECTION)
	$(HARK_INSTALL_WHISPER_MODEL)
	$(HARK_INSTALL_VAD_MODEL)
	$(HARK_INSTALL_UPDATE_SECTION)
	if [ -f $(HARK_PROFILE_DIR)/mixer.sh ]; then \
		$(INSTALL) -D -m 0755 $(HARK_PROFILE_DIR)/mixer.sh \
			$(TARGET_DIR)/usr/libexec/hark/hark-mixer; \
	fi
	if [ -f $(@D)/systemd/hark-format-data ]; then \
		$(INSTALL) -D -m 0755 $(@D)/systemd/hark-format-data \
			$(TARGET_DIR)/usr/libexec/hark/hark-format-data; \
	fi
	$(INSTALL) -D -m 0644 $(HARK_PKGDIR)/90-hark.rules \
		$(TARGET_DIR)/usr/lib/udev/rules.d/90-hark.rules
	$(HARK_INSTALL_ESPEAK_NG_LINK)
endef

# Every unit in the repository's systemd/ directory, whatever is there.
define HARK_INSTALL_INIT_SYSTEMD
	for f in $(@D)/systemd/*.service $(@D)/systemd/*.timer; do \
		[ -e "$$f" ] || continue; \
		$(INSTALL) -D -m 0644 "$$f" \
			$(TARGET_DIR)/usr/lib/systemd/system/$$(basename "$$f") || exit 1; \
	done
	$(INSTALL) -D -m 0644 $(HARK_PKGDIR)/hark-mixer.service \
		$(TARGET_DIR)/usr/lib/systemd/system/hark-mixer.service
	$(INSTALL) -D -m 0644 $(HARK_PKGDIR)/50-hark.preset \
		$(TARGET_DIR)/usr/lib/systemd/system-preset/50-hark.preset
endef

# A fixed uid/gid: the data partition keeps files owned by hark across
# updates, so the ids must not move when packages come and go.
define HARK_USERS
	hark 850 hark 850 * /var/lib/hark - audio,gpio,spi Hark voice assistant
endef

$(eval $(golang-package))
