package update_test

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/device/update/bundletest"
)

// The agent against the real rauc service (Debian's rauc 1.8) on a private
// bus, with bundles signed by a CA made here: RAUC checks the signatures.
func TestAgentWithTheRealRAUC(t *testing.T) {
	dir := t.TempDir()
	ca := bundletest.NewCA(t, dir, "box")
	svc := bundletest.StartService(t, dir, ca, bundletest.ServiceOptions{Compatible: "hark-test"})
	c, err := update.DialRAUC(t.Context(), svc.Bus)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.Status(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	if s.Compatible != "hark-test" || s.BootSlot != "A" || s.Operation != "idle" || len(s.Slots) != 2 {
		t.Fatalf("status from the real service: %+v", s)
	}
	agent := &update.Agent{RAUC: c, Running: "0.9.0", Download: update.Downloader{Dir: t.TempDir()}, Explain: update.ExplainWithCLI(svc.Conf)}
	good := bundletest.Options{Compatible: "hark-test", Version: "1.0.0", Format: "plain"}

	t.Run("refused", func(t *testing.T) {
		other := bundletest.NewCA(t, t.TempDir(), "stranger")
		for _, c := range []struct {
			name, bundle, says string
			is                 error
		}{
			{"tampered", bundletest.Tamper(t, bundletest.Bundle(t, t.TempDir(), ca, good)), "signature verification failed", nil},
			{"unsigned", bundletest.Unsigned(t, t.TempDir(), good), "Signature size is 0", nil},
			{"wrongly signed", bundletest.Bundle(t, t.TempDir(), other, good), "unable to get local issuer certificate", nil},
			{"another box's", bundletest.Bundle(t, t.TempDir(), ca, bundletest.Options{Compatible: "hark-rpi5", Version: "1.0.0", Format: "plain"}), `is for "hark-rpi5"`, update.ErrIncompatible},
			{"older", bundletest.Bundle(t, t.TempDir(), ca, bundletest.Options{Compatible: "hark-test", Version: "0.8.0", Format: "plain"}), "version 0.8.0, the box runs 0.9.0", update.ErrNotNewer},
		} {
			_, err := agent.Install(t.Context(), c.bundle, nil)
			t.Logf("%s: %v", c.name, err)
			if err == nil || !strings.Contains(err.Error(), c.says) || (c.is != nil && !errors.Is(err, c.is)) {
				t.Errorf("%s bundle: %v, want a refusal saying %q", c.name, err, c.says)
			}
		}
		for _, slot := range svc.Slots {
			if b, _ := os.ReadFile(slot); len(b) != 0 {
				t.Errorf("slot %s was written by a refused bundle", filepath.Base(slot))
			}
		}
	})

	t.Run("installed", func(t *testing.T) {
		bundletest.RequireInstall(t, "plain")
		var last update.Progress
		res, err := agent.Install(t.Context(), bundletest.Bundle(t, t.TempDir(), ca, good), func(p update.Progress) { last = p })
		if err != nil {
			t.Fatal(err)
		}
		if res.Version != "1.0.0" || last.Percent != 100 {
			t.Errorf("result %+v, last progress %+v", res, last)
		}
		if got, _ := os.ReadFile(svc.Slots["B"]); !bytes.Equal(got, bundletest.Image(good)) {
			t.Errorf("slot B holds %d bytes, not the bundle's image", len(got))
		}
		if got, _ := os.ReadFile(svc.Slots["A"]); len(got) != 0 {
			t.Error("the booted slot A was written")
		}
		s, err := c.Status(t.Context())
		if err != nil {
			t.Fatal(err)
		}
		if s.Primary != "rootfs.1" || svc.Primary(t) != "B" {
			t.Errorf("next boot %q (backend %q), want rootfs.1 / B", s.Primary, svc.Primary(t))
		}
	})
}

// From `hark update install FILE` to reboot-ready (RAUC's Completed): a
// local, signed 16 MiB bundle through the real rauc service.
func BenchmarkInstallLocalBundle(b *testing.B) {
	dir := b.TempDir()
	ca := bundletest.NewCA(b, dir, "box")
	svc := bundletest.StartService(b, dir, ca, bundletest.ServiceOptions{Compatible: "hark-test"})
	bundletest.RequireInstall(b, "plain")
	opts := bundletest.Options{Compatible: "hark-test", Version: "1.0.0", Format: "plain", ImageSize: 16 << 20}
	bundle := bundletest.Bundle(b, dir, ca, opts)
	c, err := update.DialRAUC(b.Context(), svc.Bus)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	agent := &update.Agent{RAUC: c, Running: "0.9.0", AllowDowngrade: true, Download: update.Downloader{Dir: b.TempDir()}}
	st, _ := os.Stat(bundle)
	b.SetBytes(st.Size())
	b.ResetTimer()
	for b.Loop() {
		if _, err := agent.Install(b.Context(), bundle, nil); err != nil {
			b.Fatal(err)
		}
	}
}
