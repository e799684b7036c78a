package update_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"

	"github.com/harkbox/hark/device/update"
)

// slots is an A/B box booted from A at 1.0.0 whose installer trusts any
// bundle naming its compatible and version (RAUC checks a signature here).
type slots struct{ installed []string }

func (s *slots) Status(context.Context) (update.System, error) {
	return update.System{Compatible: "hark-rpi4-64", BootSlot: "A", Operation: "idle", Slots: []update.Slot{
		{Name: "rootfs.0", Class: "rootfs", BootName: "A", State: "booted", BundleVersion: "1.0.0"},
		{Name: "rootfs.1", Class: "rootfs", BootName: "B", State: "inactive"}}}, nil
}

func (s *slots) Info(_ context.Context, bundle string) (update.BundleInfo, error) {
	b, err := os.ReadFile(bundle)
	if err != nil {
		return update.BundleInfo{}, err
	}
	compat, version, _ := strings.Cut(string(b), " ")
	return update.BundleInfo{Compatible: compat, Version: version}, nil
}

func (s *slots) Install(_ context.Context, bundle string, progress func(update.Progress)) error {
	progress(update.Progress{Stage: "install", Percent: 100})
	s.installed = append(s.installed, bundle)
	return nil
}

// An agent asks the update server's manifest what it offers, downloads a
// newer bundle (checking its size and hash, leaving the data partition's
// reserve) and has RAUC write it to the other slot; Restart then reboots
// into it when the speaker is idle.
func ExampleAgent() {
	bundle := []byte("hark-rpi4-64 1.3.0")
	sum := sha256.Sum256(bundle)
	mux := http.NewServeMux()
	mux.HandleFunc("/manifest.json", func(w http.ResponseWriter, _ *http.Request) {
		fmt.Fprintf(w, `{"version":"1.3.0","url":"hark-1.3.0.raucb","size":%d,"sha256":"%s","compatible":"hark-rpi4-64"}`, len(bundle), hex.EncodeToString(sum[:]))
	})
	mux.HandleFunc("/hark-1.3.0.raucb", func(w http.ResponseWriter, _ *http.Request) { w.Write(bundle) })
	srv := httptest.NewServer(mux)
	defer srv.Close()
	dir, _ := os.MkdirTemp("", "hark-example")
	defer os.RemoveAll(dir)

	rauc := &slots{}
	agent := &update.Agent{Manifest: srv.URL + "/manifest.json", Download: update.Downloader{Dir: dir}, RAUC: rauc, Running: "1.0.0"}
	ctx := context.Background()
	c, err := agent.Check(ctx)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("running", c.Current, "offered", c.Available.Version, "newer:", c.Newer)
	res, err := agent.Install(ctx, "", nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println("installed", res.Version, "slots written:", len(rauc.installed))
	// Output:
	// running 1.0.0 offered 1.3.0 newer: true
	// installed 1.3.0 slots written: 1
}
