# Hark: the firmware of a private push-to-talk smart speaker.
#   make run    run the appliance on this computer, in simulation
#   make test   everything CI checks: go.mod tidy, vet, race tests, cgo-free
#               tests, ARM cross builds, the arm64 tests under qemu and the
#               whisper.cpp tests; ends with what was skipped and why
#   make fresh  make test's CI run (.ci/run) in a bare Debian bookworm chroot
#   make soak   the slow suites (long kill -9 loops and the like)
#   make fuzz   every fuzz target for FUZZTIME (60s) each and the
#               daemon's memory over 1,000 turns
#   make bench  the figures: start-up, idle memory, turn overhead,
#               endpointing (and its corpus table), capture and barge-in;
#               with the bench model (make bench-model), the model's
#               power-on to ready, a question during its warm-up and the
#               first question after an eviction; several askers at once
#               on a one-at-a-time server (queue waits, the daemon's RSS
#               under ten turns)
#   make cross  arm64 and armv7 binaries in bin/
#   make image-qemu  the card image of an emulated arm64 board (build/qemu)
#   make boot-test   boots it in qemu: A/B, READY, update, rollback, power cut
#   make lint   go vet and staticcheck
#   make clean  remove build output and the test cache
#
# Speech to text (whisper.cpp, linked in with -tags whisper):
#   make whisper                 build whisper.cpp for this computer
#   make whisper-pi5|pi4|armv7   cross-build it for a Raspberry Pi
#   make build-whisper           bin/hark with whisper.cpp, for this computer
#   make cross-whisper-pi5 ...   bin/linux-<pi>-whisper/hark with whisper.cpp
#   make qemu-whisper-pi5 ...    the engine's tests for that Pi under qemu (slow)
#   make bench-whisper           Hark vs whisper-cli, audio context, memory,
#                                the endpointing corpus with Silero, and the
#                                end of speech to the answer's first audio,
#                                stage by stage
#
# Language model benchmarks:
#   make bench-llm     the reply's cost against the real Ollama server and
#                      the bench model: calls, prompt tokens evaluated and
#                      reused, time to first audio, per case and turn
#   make bench-model   a model in Llama 3.2 1B's shape with random weights,
#                      imported into the Ollama in build/llm as hark-bench-1b
#
# Interoperability:
#   make jarvis-node-test  a real Jarvis node's own code against hark center:
#                      JARVIS_NODE_SRC, JARVIS_SDK_SRC and JARVIS_LOG_CLIENT_SRC
#                      name source trees of alexberardi/jarvis-node-setup,
#                      jarvis-command-sdk and jarvis-log-client (nothing is
#                      fetched); needs python3 with pydantic 2, requests and
#                      python-dotenv, and Debian's python3-httpx and
#                      python3-sqlalchemy

GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
# qemu finds the arm64 C library in the Debian cross toolchain's sysroot,
# or, once multiarch arm64 packages are installed (the alsa-lib the arm64
# build links), at / itself: mixing the two hangs the program at start.
ARM64_ROOT  := $(if $(wildcard /lib/ld-linux-aarch64.so.1),/,/usr/aarch64-linux-gnu)
ARMHF_ROOT  := $(if $(wildcard /lib/ld-linux-armhf.so.3),/,/usr/arm-linux-gnueabihf)
QEMU_ARM64  ?= qemu-aarch64-static -L $(ARM64_ROOT)
CC_ARM64    ?= aarch64-linux-gnu-gcc
CC_ARMV7    ?= arm-linux-gnueabihf-gcc
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
# Build tags: alsa links alsa-lib (libasound2-dev) for the real microphone
# and speaker; without it they are stubs and the simulation uses WAV files.
TAGS        ?= alsa
LDFLAGS     := -s -w -X main.version=$(VERSION)

# cgo is allowed only in these leaf packages (see cmd/hark/deps_test.go);
# everything else must build and pass its tests with CGO_ENABLED=0.
CGO_LEAVES  := /pipeline/whisper /device/alsa
NOCGO_PKGS   = $(shell $(GO) list ./... | grep -v $(foreach l,$(CGO_LEAVES),-e '$(l)$$'))
# The core packages whose arm64 test binaries run under qemu.
CORE_PKGS   := ./pipeline/... ./reply/... ./storage/... ./device/... ./gpio/...

# whisper.cpp, pinned. The recipe unpacks this release's source from
# WHISPER_TARBALL when it is there (../shared/third_party holds it; no
# network needed), else downloads it from GitHub; or point WHISPER_SRC at a
# whisper.cpp source tree (a git checkout or an unpacked release).
WHISPER_VERSION ?= v1.9.3
WHISPER_URL     ?= https://github.com/ggml-org/whisper.cpp/archive/refs/tags/$(WHISPER_VERSION).tar.gz
WHISPER_TARBALL ?= ../shared/third_party/whisper.cpp-$(WHISPER_VERSION).tar.gz
WHISPER_SHA256  ?= bf00ef4a9370579de5f2f75b2174b58dc47ce1487d09a344f83b35cdcb303304
WHISPER_DIR     ?= build/whisper
WHISPER_SRC     ?= $(WHISPER_DIR)/src-$(WHISPER_VERSION)
# Where `make whisper` installs and what the tagged builds and tests link.
WHISPER_PREFIX  ?= $(WHISPER_DIR)/host
WHISPER_JOBS    ?= $(shell nproc 2>/dev/null || echo 2)
# Always Release, static, OpenMP, CPU only, no tests; of the examples only
# whisper-cli and whisper-bench are built, which bench-whisper compares
# against.
WHISPER_CMAKE   := -DCMAKE_BUILD_TYPE=Release -DBUILD_SHARED_LIBS=OFF -DGGML_OPENMP=ON \
	-DWHISPER_BUILD_TESTS=OFF -DWHISPER_BUILD_SERVER=OFF -DWHISPER_SDL2=OFF -DWHISPER_CURL=OFF \
	-DGGML_CCACHE=OFF
# The CPU of each Pi: Pi 5 is a Cortex-A76 (dot product and fp16
# arithmetic), Pi 4 a Cortex-A72, Pi 3 / Zero 2 W in 32-bit mode armv7 NEON.
WHISPER_ARCH_pi5   := armv8.2-a+dotprod+fp16
WHISPER_ARCH_pi4   := armv8-a+crc
WHISPER_ARCH_armv7 := armv7-a
CROSS_pi5   := aarch64-linux-gnu
CROSS_pi4   := aarch64-linux-gnu
CROSS_armv7 := arm-linux-gnueabihf
CPU_pi5     := aarch64
CPU_pi4     := aarch64
CPU_armv7   := armv7
GOARCH_pi5  := arm64
GOARCH_pi4  := arm64
GOARCH_armv7 := arm
QEMU_pi5    := qemu-aarch64-static -L $(ARM64_ROOT)
QEMU_pi4    := qemu-aarch64-static -L $(ARM64_ROOT)
QEMU_armv7  := qemu-arm-static -L $(ARMHF_ROOT)
# What hark links with -tags whisper (matches pipeline/whisper/engine.go).
whisper_env = CGO_ENABLED=1 CGO_CFLAGS="-I$(abspath $(1))/include" CGO_LDFLAGS="-L$(abspath $(1))/lib"

.PHONY: run test deps tidy vet unit nocgo cross qemu bench soak fuzz lint clean fresh test-steps \
	whisper whisper-src whisper-pi5 whisper-pi4 whisper-armv7 whisper-test \
	build-whisper cross-whisper-pi5 cross-whisper-pi4 cross-whisper-armv7 bench-whisper \
	qemu-whisper-pi5 qemu-whisper-pi4 qemu-whisper-armv7 bench-model bench-llm jarvis-node-test image-qemu boot-test

# make run links alsa-lib when its headers are installed, so the
# simulation can use this computer's sound card.
RUN_TAGS    := $(shell test -e /usr/include/alsa/asoundlib.h && echo alsa)

run:
	$(GO) run -tags '$(RUN_TAGS)' ./cmd/hark run --sim

# Each test step writes go test's events to $(TEST_OUT)/STEP.json; the
# report at the end shows the failures, one line per skipped test with its
# reason, the slowest packages, and "N passed, N failed, N skipped".
TEST_OUT    := build/test

test: deps tidy vet
	@rm -rf $(TEST_OUT); mkdir -p $(TEST_OUT)
	@status=0; $(MAKE) --no-print-directory -k test-steps || status=1; \
		$(GO) run ./internal/testreport $(TEST_OUT)/*.json || status=1; \
		exit $$status

test-steps: unit nocgo cross qemu whisper-test

# Debian packages the tests use (compilers, cross C libraries, espeak-ng,
# qemu, rauc...); installs the missing ones and checks that cgo builds for
# this machine, arm64 and armv7.
deps:
	@.ci/deps

# go.mod and go.sum say exactly what the code imports.
tidy:
	@$(GO) mod tidy -diff >/dev/null 2>&1 || { $(GO) mod tidy -diff; \
		echo "go.mod or go.sum is not tidy: run go mod tidy"; exit 1; }

vet:
	$(GO) vet -tags $(TAGS) ./...

unit:
	@mkdir -p $(TEST_OUT)
	$(GO) test -race -json -tags $(TAGS) ./... > $(TEST_OUT)/unit.json

nocgo:
	@mkdir -p $(TEST_OUT)
	CGO_ENABLED=0 $(GO) test -json $(NOCGO_PKGS) > $(TEST_OUT)/nocgo.json

cross:
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=$(CC_ARM64) \
		$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/linux-arm64/hark ./cmd/hark
	CGO_ENABLED=1 GOOS=linux GOARCH=arm GOARM=7 CC=$(CC_ARMV7) \
		$(GO) build -tags $(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/linux-armv7/hark ./cmd/hark
	@file bin/linux-arm64/hark bin/linux-armv7/hark 2>/dev/null || ls -l bin/linux-*/hark

qemu:
	@mkdir -p $(TEST_OUT)
	HARK_EMULATED=1 CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=$(CC_ARM64) \
		$(GO) test -json -tags $(TAGS) -exec '$(QEMU_ARM64)' $(CORE_PKGS) > $(TEST_OUT)/qemu.json

# The slow suites, at full count: not part of make test.
# The memory soak prints the daemon's RSS, goroutines and open files over
# 1,000 turns through its API (HARK_SOAK_TURNS, HARK_SOAK_ENV to vary).
soak:
	HARK_SOAK=1 $(GO) test -race -tags $(TAGS) -timeout 60m -run 'Soak|KillLoop' -skip 'TestDaemonMemorySoak' ./...
	HARK_SOAK=1 $(GO) test -tags $(TAGS) -timeout 30m -run 'TestDaemonMemorySoak' -v ./cmd/hark

# Every fuzz target for FUZZTIME each (at least a minute by default): the
# model check on mutated headers, redaction, the reply guards and
# splitters, the tool-text parser, the center's request decoding and the
# web page's forms. A failing input is kept in the package's testdata/fuzz.
FUZZTIME ?= 60s
fuzz:
	@set -e; for t in $$(grep -rl --include='*_test.go' --exclude-dir=build '^func Fuzz' . | xargs grep -h -o '^func Fuzz[A-Za-z]*' | sort -u | cut -c6-); do \
		pkg=$$(dirname $$(grep -rl --include='*_test.go' --exclude-dir=build "^func $$t(" . | head -1)); \
		echo "fuzz $$t in $$pkg for $(FUZZTIME)"; \
		$(GO) test -run '^$$' -fuzz "^$$t$$" -fuzztime $(FUZZTIME) $$pkg; \
	done

# make test's CI run in a bare Debian bookworm chroot made with debootstrap,
# exactly as a new machine runs it (root, loop-free; see .ci/fresh).
fresh:
	.ci/fresh

bench:
	$(GO) test -run '^$$' -bench . -benchtime 10x ./cmd/hark
	$(GO) test -tags $(TAGS) -run '^$$' -bench . -benchmem ./pipeline/... ./reply/... ./device/...
	@echo "endpointing corpus (pipeline/endpoint/corpus_test.go):"
	@$(GO) test -count 1 -run '^TestCorpusEnergy$$' -v ./pipeline/endpoint | grep -e '^        ' -e 'utterances'

# The whisper.cpp tests: libwhisper is built once (cached in WHISPER_PREFIX)
# when its pinned source is at hand, then every whisper-tagged test runs.
# Without source or network they are skipped, and the report says so.
whisper-test:
	@mkdir -p $(TEST_OUT)
	@if [ ! -f $(WHISPER_PREFIX)/lib/libwhisper.a ] && { [ -f $(WHISPER_SRC)/CMakeLists.txt ] || [ -f $(WHISPER_TARBALL) ]; }; then \
		$(MAKE) --no-print-directory whisper; \
	fi
	@if [ -f $(WHISPER_PREFIX)/lib/libwhisper.a ]; then \
		echo "whisper tests: linking $(WHISPER_PREFIX)"; \
		$(call whisper_env,$(WHISPER_PREFIX)) $(GO) test -json -tags whisper,$(TAGS) ./pipeline/whisper ./pipeline/media ./cmd/hark > $(TEST_OUT)/whisper.json; \
	else \
		why="no libwhisper in $(WHISPER_PREFIX) and no whisper.cpp source ($(WHISPER_TARBALL) or WHISPER_SRC)"; \
		echo "whisper tests skipped: $$why"; \
		printf '{"Action":"output","Package":"pipeline/whisper","Test":"(whisper-tagged tests)","Output":"%s\\n"}\n{"Action":"skip","Package":"pipeline/whisper","Test":"(whisper-tagged tests)"}\n' "$$why" > $(TEST_OUT)/whisper.json; \
	fi

# whisper.cpp's source: WHISPER_SRC when it is a tree, else the pinned
# release's tarball (checked against its sha256), else GitHub.
whisper-src:
	@if [ -f $(WHISPER_SRC)/CMakeLists.txt ]; then \
		echo "whisper.cpp source: $(WHISPER_SRC)"; \
	elif [ -f $(WHISPER_TARBALL) ]; then \
		echo "whisper.cpp source: $(WHISPER_TARBALL)"; \
		echo "$(WHISPER_SHA256)  $(WHISPER_TARBALL)" | sha256sum -c --quiet || { \
			echo "$(WHISPER_TARBALL) is not the pinned whisper.cpp $(WHISPER_VERSION) (sha256 differs)"; exit 1; }; \
		mkdir -p $(WHISPER_SRC) && tar -xzf $(WHISPER_TARBALL) --strip-components=1 -C $(WHISPER_SRC); \
	else \
		echo "downloading whisper.cpp $(WHISPER_VERSION) from $(WHISPER_URL)"; \
		mkdir -p $(WHISPER_SRC) && \
		{ curl -fsSL $(WHISPER_URL) | tar -xz --strip-components=1 -C $(WHISPER_SRC); } || { \
			rm -rf $(WHISPER_SRC); \
			echo "could not download whisper.cpp $(WHISPER_VERSION) (no network?), and $(WHISPER_TARBALL) is absent."; \
			echo "Get its source another way and point the build at it:"; \
			echo "  make $(or $(MAKECMDGOALS),whisper) WHISPER_SRC=/path/to/whisper.cpp"; \
			exit 1; }; \
	fi
	@command -v cmake >/dev/null || { echo "cmake is missing: apt-get install cmake g++"; exit 1; }

# whisper.cpp for this computer, tuned to its CPU (GGML_NATIVE): the
# libraries, their headers, whisper-cli and whisper-bench into
# $(WHISPER_DIR)/host.
whisper: whisper-src
	cmake -S $(WHISPER_SRC) -B $(WHISPER_DIR)/build-host $(WHISPER_CMAKE) -DGGML_NATIVE=ON
	cmake --build $(WHISPER_DIR)/build-host -j $(WHISPER_JOBS) --target whisper-cli whisper-bench
	rm -rf $(WHISPER_DIR)/host && mkdir -p $(WHISPER_DIR)/host/lib $(WHISPER_DIR)/host/include $(WHISPER_DIR)/host/bin
	find $(WHISPER_DIR)/build-host -name 'lib*.a' -exec cp {} $(WHISPER_DIR)/host/lib/ \;
	cp $(WHISPER_SRC)/include/whisper.h $(WHISPER_SRC)/ggml/include/*.h $(WHISPER_DIR)/host/include/
	cp $(WHISPER_DIR)/build-host/bin/whisper-cli $(WHISPER_DIR)/build-host/bin/whisper-bench $(WHISPER_DIR)/host/bin/

# whisper.cpp for a Pi, with the Debian cross compilers
# (g++-aarch64-linux-gnu, g++-arm-linux-gnueabihf).
whisper-pi5 whisper-pi4 whisper-armv7: whisper-%: whisper-src
	cmake -S $(WHISPER_SRC) -B $(WHISPER_DIR)/build-$* $(WHISPER_CMAKE) -DGGML_NATIVE=OFF \
		-DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=$(CPU_$*) \
		-DCMAKE_C_COMPILER=$(CROSS_$*)-gcc -DCMAKE_CXX_COMPILER=$(CROSS_$*)-g++ \
		-DGGML_CPU_ARM_ARCH=$(WHISPER_ARCH_$*) \
		$(if $(filter armv7,$*),-DCMAKE_C_FLAGS="-mfpu=neon-vfpv4 -mfloat-abi=hard" -DCMAKE_CXX_FLAGS="-mfpu=neon-vfpv4 -mfloat-abi=hard") \
		-DWHISPER_BUILD_EXAMPLES=OFF -DCMAKE_INSTALL_PREFIX=$(abspath $(WHISPER_DIR)/$*)
	cmake --build $(WHISPER_DIR)/build-$* -j $(WHISPER_JOBS)
	cmake --install $(WHISPER_DIR)/build-$*

# Hark with whisper.cpp linked in.
build-whisper:
	$(call whisper_env,$(WHISPER_PREFIX)) $(GO) build -tags whisper,$(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o bin/hark ./cmd/hark
	bin/hark version

# CROSS_OUT moves the binary (the emulated board's builds of other versions).
cross-whisper-pi5 cross-whisper-pi4 cross-whisper-armv7: cross-whisper-%:
	$(call whisper_env,$(WHISPER_DIR)/$*) CC=$(CROSS_$*)-gcc CXX=$(CROSS_$*)-g++ GOOS=linux GOARCH=$(GOARCH_$*) GOARM=7 \
		$(GO) build -tags whisper,$(TAGS) -trimpath -ldflags '$(LDFLAGS)' -o $(or $(CROSS_OUT),bin/linux-$*-whisper)/hark ./cmd/hark
	$(QEMU_$*) $(or $(CROSS_OUT),bin/linux-$*-whisper)/hark version

# The engine's tests for a board, under qemu: emulation is a hundred times
# slower than the board, so only the load, JFK, VAD and bad-model tests.
qemu-whisper-pi5 qemu-whisper-pi4 qemu-whisper-armv7: qemu-whisper-%:
	$(call whisper_env,$(WHISPER_DIR)/$*) CC=$(CROSS_$*)-gcc GOOS=linux GOARCH=$(GOARCH_$*) GOARM=7 \
		$(GO) test -tags whisper -timeout 30m -exec '$(QEMU_$*)' \
		-run 'JFK|VAD|Reject' ./pipeline/whisper

# Hark's transcription against whisper-cli built from the same source, the
# encoder with a sized and a full audio context, memory and load time.
bench-whisper:
	$(call whisper_env,$(WHISPER_PREFIX)) WHISPER_CLI=$(abspath $(WHISPER_PREFIX))/bin/whisper-cli \
		$(GO) test -tags whisper -run '^$$' -bench . -benchtime 5x ./pipeline/whisper
	@echo "endpointing corpus with Silero (pipeline/whisper/corpus_test.go):"
	@$(call whisper_env,$(WHISPER_PREFIX)) $(GO) test -tags whisper -count 1 -run '^TestCorpusSilero$$' -v ./pipeline/whisper | \
		grep -e '^        ' -e 'utterances'

# The benchmark model: a GGUF in Llama 3.2 1B Instruct's shape with random
# weights and the real tokenizer (cmd/benchmodel), imported into the pinned
# Ollama release from ../shared/third_party as hark-bench-1b, quantized to
# Q4_K_M, with internal/benchmodel/llama32.gotmpl; then one chat shows that
# it answers. Skipped, saying why, without that Ollama. Not part of make test.
bench-model:
	GO=$(GO) internal/benchmodel/import.sh

# The reply's cost on this machine's CPU (reply/llmbench_test.go): the real
# Ollama server serving the bench model, one line per case and turn with
# model calls, prompt tokens evaluated and reused (from the model runner's
# log), milliseconds to the first sentence, and the bare model's time to
# first token for the same words. Skipped, saying why, without the pinned
# Ollama release.
bench-llm: bench-model
	$(GO) test -tags llmbench -run '^TestLLMBench$$' -count 1 -timeout 60m -v ./reply/ | \
		grep -v -e '^=== RUN' -e '^--- PASS' -e '^PASS' -e '^ok '

# The emulated board (buildroot/qemu; buildroot/README.md, "The emulated
# board"): the card image for qemu-system-aarch64 -M virt from Debian's
# arm64 packages and every Hark file the Buildroot recipe installs, hark
# cross-built for it with whisper.cpp (the Pi 4's flags, the emulated CPU
# is a Cortex-A72). Versioned as Buildroot versions it (version.sh).
QEMU_OUT       ?= build/qemu
BOOT_TEST_OUT  ?= build/qemu/boot-test
IMAGE_VERSION   = $(shell buildroot/package/hark/version.sh .)

image-qemu: $(WHISPER_DIR)/pi4/lib/libwhisper.a
	$(MAKE) --no-print-directory cross-whisper-pi4 VERSION=$(IMAGE_VERSION)
	HARK_VERSION=$(IMAGE_VERSION) QEMU_OUT=$(QEMU_OUT) buildroot/qemu/image.sh

$(WHISPER_DIR)/pi4/lib/libwhisper.a:
	$(MAKE) --no-print-directory whisper-pi4

# Boots the emulated board headless and proves, a PASS or FAIL line each,
# on one board: slot A, READY, the self-test, the web page's setup code,
# the watchdog, a bundle signed by another key refused, a power cut
# mid-install, a bad update that rolls back to A, a signed update that
# boots B; a fact and a timer outlive them all. The card is version 1.0.0
# and the update 1.0.1, whatever git says.
# BOOT_TEST_FLAGS=-short: only the first boot: READY, the self-test, the web
# page, the watchdog.
boot-test: $(WHISPER_DIR)/pi4/lib/libwhisper.a
	$(MAKE) --no-print-directory cross-whisper-pi4 VERSION=1.0.0 CROSS_OUT=$(BOOT_TEST_OUT)/bin-1.0.0
	HARK_BIN=$(BOOT_TEST_OUT)/bin-1.0.0/hark HARK_VERSION=1.0.0 QEMU_OUT=$(BOOT_TEST_OUT)/card buildroot/qemu/image.sh
	$(if $(filter -short,$(BOOT_TEST_FLAGS)),,$(MAKE) --no-print-directory cross-whisper-pi4 VERSION=1.0.1 CROSS_OUT=$(BOOT_TEST_OUT)/bin-1.0.1)
	$(if $(filter -short,$(BOOT_TEST_FLAGS)),,HARK_BIN=$(BOOT_TEST_OUT)/bin-1.0.1/hark HARK_VERSION=1.0.1 QEMU_OUT=$(BOOT_TEST_OUT)/update \
		QEMU_KEYS=$(BOOT_TEST_OUT)/card/keys QEMU_BUNDLE_ONLY=1 buildroot/qemu/image.sh)
	QEMU_BOOT_TEST=$(abspath $(BOOT_TEST_OUT)) QEMU_CONSOLE=$(abspath $(BOOT_TEST_OUT))/console.log \
		$(GO) test -tags boottest -count 1 -timeout 60m -v $(BOOT_TEST_FLAGS) ./buildroot/qemu

lint:
	$(GO) vet -tags $(TAGS) ./...
	$(GO) run $(STATICCHECK) -tags $(TAGS) ./...

clean:
	rm -rf bin build/whisper/build-*
	$(GO) clean -testcache

jarvis-node-test:
	@for v in JARVIS_NODE_SRC JARVIS_SDK_SRC JARVIS_LOG_CLIENT_SRC; do \
		eval "d=\$$$$v"; [ -d "$$d" ] || { echo "set $$v to a source tree (see the top of this Makefile)"; exit 2; }; \
	done
	$(GO) test -count 1 -run '^TestRealJarvisNode$$' -v ./cmd/hark
