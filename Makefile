# Hark: the firmware of a private push-to-talk smart speaker.
#   make run    run the appliance on this computer, in simulation
#   make test   everything CI checks: vet, race tests, cgo-free tests, ARM
#               cross builds and the arm64 tests under qemu
#   make bench  the figures: start-up, idle memory, turn overhead
#   make cross  arm64 and armv7 binaries in bin/
#   make lint   go vet and staticcheck
#   make clean  remove build output and the test cache

GO          ?= go
STATICCHECK ?= honnef.co/go/tools/cmd/staticcheck@v0.8.2
QEMU_ARM64  ?= qemu-aarch64-static -L /usr/aarch64-linux-gnu
CC_ARM64    ?= aarch64-linux-gnu-gcc
CC_ARMV7    ?= arm-linux-gnueabihf-gcc
VERSION     ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS     := -s -w -X main.version=$(VERSION)

# cgo is allowed only in these leaf packages (see cmd/hark/deps_test.go);
# everything else must build and pass its tests with CGO_ENABLED=0.
CGO_LEAVES  := /pipeline/whisper /device/alsa
NOCGO_PKGS   = $(shell $(GO) list ./... | grep -v $(foreach l,$(CGO_LEAVES),-e '$(l)$$'))
# The core packages whose arm64 test binaries run under qemu.
CORE_PKGS   := ./pipeline/... ./reply/... ./storage/... ./device/... ./gpio/...

.PHONY: run test deps vet unit nocgo cross qemu bench lint clean

run:
	$(GO) run ./cmd/hark run --sim

test: deps vet unit nocgo cross qemu

# Debian packages the tests use (espeak-ng, cross compilers, qemu); installs
# the missing ones when it can.
deps:
	@.ci/deps

vet:
	$(GO) vet ./...

unit:
	$(GO) test -race ./...

nocgo:
	CGO_ENABLED=0 $(GO) test $(NOCGO_PKGS)

cross:
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=$(CC_ARM64) \
		$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/linux-arm64/hark ./cmd/hark
	CGO_ENABLED=1 GOOS=linux GOARCH=arm GOARM=7 CC=$(CC_ARMV7) \
		$(GO) build -trimpath -ldflags '$(LDFLAGS)' -o bin/linux-armv7/hark ./cmd/hark
	@file bin/linux-arm64/hark bin/linux-armv7/hark 2>/dev/null || ls -l bin/linux-*/hark

qemu:
	CGO_ENABLED=1 GOOS=linux GOARCH=arm64 CC=$(CC_ARM64) \
		$(GO) test -exec '$(QEMU_ARM64)' $(CORE_PKGS)

bench:
	$(GO) test -run '^$$' -bench . -benchtime 10x ./cmd/hark
	$(GO) test -run '^$$' -bench . -benchmem ./pipeline/... ./reply/...

lint:
	$(GO) vet ./...
	$(GO) run $(STATICCHECK) ./...

clean:
	rm -rf bin
	$(GO) clean -testcache
