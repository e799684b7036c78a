// Package rauctest is a test double of the RAUC service: it owns
// de.pengutronix.rauc on a private dbus-daemon and answers RAUC's
// Installer interface (methods, properties, the Completed signal) the way
// RAUC 1.8 does, so Hark's real D-Bus client can be tested against it. The
// bundle check is a function: tests pass the real `rauc info` (see
// bundletest) to have signatures checked for real.
package rauctest

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/godbus/dbus/v5"
	"github.com/godbus/dbus/v5/prop"
	"github.com/harkbox/hark/device/update/bundletest"
)

const iface = "de.pengutronix.rauc.Installer"

// Bus starts a private dbus-daemon for the test and returns its address.
// It skips the test when dbus-daemon is not installed.
func Bus(t testing.TB) string {
	t.Helper()
	return bundletest.Bus(t)
}

// Slot is a slot of the double's system.
type Slot struct {
	Name, BootName, State, BundleVersion, Status string
	// BootStatus is the boot loader's "good" or "bad"; Installed the
	// time of the last write into the slot, as RAUC writes it.
	BootStatus, Installed string
}

// RAUC is the double. Set its fields before Start; lock-free reads of the
// records after the test's calls have returned are fine.
type RAUC struct {
	Compatible string
	BootSlot   string
	Slots      []Slot
	// Check reads a bundle as RAUC would after verifying its signature,
	// or refuses it with RAUC's message.
	Check func(bundle string) (compatible, version string, err error)
	// Fail, when set, makes the next installation fail with this message
	// after its first steps.
	Fail string
	// Hold, when set, keeps an installation running until it is closed.
	Hold chan struct{}

	mu        sync.Mutex
	conn      *dbus.Conn
	props     *prop.Properties
	operation string
	primary   string
	installed []string
	marks     []string
	started   chan struct{}
}

type progress struct {
	Percent int32
	Message string
	Depth   int32
}

type slotStatus struct {
	Name  string
	Props map[string]dbus.Variant
}

// Start serves the double on the bus at address until the test ends.
func (r *RAUC) Start(t testing.TB, address string) {
	t.Helper()
	conn, err := dbus.Connect(address)
	if err != nil {
		t.Fatalf("rauctest: %v", err)
	}
	t.Cleanup(func() { conn.Close() })
	r.conn = conn
	r.operation = "idle"
	r.started = make(chan struct{}, 16)
	if r.primary == "" {
		r.primary = r.other()
	}
	if err := conn.Export(r, "/", iface); err != nil {
		t.Fatal(err)
	}
	r.props, err = prop.Export(conn, "/", prop.Map{iface: {
		"Operation":  {Value: "idle", Emit: prop.EmitTrue},
		"LastError":  {Value: "", Emit: prop.EmitTrue},
		"Progress":   {Value: progress{0, "", 0}, Emit: prop.EmitTrue},
		"Compatible": {Value: r.Compatible, Emit: prop.EmitFalse},
		"Variant":    {Value: "", Emit: prop.EmitFalse},
		"BootSlot":   {Value: r.BootSlot, Emit: prop.EmitFalse},
	}})
	if err != nil {
		t.Fatal(err)
	}
	reply, err := conn.RequestName("de.pengutronix.rauc", dbus.NameFlagDoNotQueue)
	if err != nil || reply != dbus.RequestNameReplyPrimaryOwner {
		t.Fatalf("rauctest: owning de.pengutronix.rauc: %v (%v)", err, reply)
	}
}

// SetBundleVersion records version as the bundle last written into the
// named slot, as a finished install (or a flashed image) would.
func (r *RAUC) SetBundleVersion(slot, version string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i := range r.Slots {
		if r.Slots[i].Name == slot {
			r.Slots[i].BundleVersion = version
		}
	}
}

// Started is sent on when an installation begins.
func (r *RAUC) Started() <-chan struct{} { return r.started }

// Installed lists the bundles installed successfully.
func (r *RAUC) Installed() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.installed...)
}

// Marks lists the Mark calls, as "state slot".
func (r *RAUC) Marks() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.marks...)
}

func (r *RAUC) other() string {
	for _, s := range r.Slots {
		if s.BootName != r.BootSlot {
			return s.BootName
		}
	}
	return ""
}

func fail(msg string) *dbus.Error {
	return dbus.NewError("org.gtk.GDBus.UnmappedGError.Quark._g_2dio_2derror_2dquark.Code0", []any{msg})
}

// Info is RAUC's Info method.
func (r *RAUC) Info(bundle string) (string, string, *dbus.Error) {
	if r.Check == nil {
		return "", "", fail("no bundle check configured")
	}
	c, v, err := r.Check(bundle)
	if err != nil {
		return "", "", fail(err.Error())
	}
	return c, v, nil
}

// InstallBundle is RAUC's InstallBundle method: it starts the work and
// returns; Completed reports the end.
func (r *RAUC) InstallBundle(source string, args map[string]dbus.Variant) *dbus.Error {
	r.mu.Lock()
	if r.operation != "idle" {
		r.mu.Unlock()
		return fail("Already processing a different method")
	}
	r.operation = "installing"
	r.mu.Unlock()
	r.props.SetMust(iface, "Operation", "installing")
	r.props.SetMust(iface, "LastError", "")
	go r.install(source)
	return nil
}

// Install is RAUC's older Install method.
func (r *RAUC) Install(source string) *dbus.Error {
	return r.InstallBundle(source, nil)
}

func (r *RAUC) step(pct int32, msg string) {
	r.props.SetMust(iface, "Progress", progress{pct, msg, 1})
	time.Sleep(time.Millisecond)
}

func (r *RAUC) install(bundle string) {
	r.started <- struct{}{}
	result := int32(0)
	defer func() {
		r.mu.Lock()
		r.operation = "idle"
		r.mu.Unlock()
		r.props.SetMust(iface, "Operation", "idle")
		r.conn.Emit("/", iface+".Completed", result)
	}()
	r.step(0, "Installing")
	r.step(20, "Checking bundle")
	compat, version, err := "", "", error(nil)
	if r.Check != nil {
		compat, version, err = r.Check(bundle)
	}
	if err == nil && compat != r.Compatible {
		//lint:ignore ST1005 RAUC's own wording
		err = fmt.Errorf("Compatible mismatch: Expected '%s' but bundle manifest has '%s'", r.Compatible, compat)
	}
	if err == nil && r.Fail != "" {
		err = errors.New(r.Fail)
	}
	if err != nil {
		r.props.SetMust(iface, "LastError", "Installation error: "+err.Error())
		r.step(100, "Installing failed.")
		result = 1
		return
	}
	target := r.other()
	r.step(40, "Determining target install group")
	if r.Hold != nil {
		<-r.Hold
	}
	r.step(60, "Copying image to rootfs."+target)
	r.step(80, "Updating slots")
	r.mu.Lock()
	for i := range r.Slots {
		if r.Slots[i].BootName == target {
			r.Slots[i].BundleVersion, r.Slots[i].Status = version, "ok"
			r.Slots[i].Installed, r.Slots[i].BootStatus = time.Now().UTC().Format(time.RFC3339Nano), "good"
		}
	}
	r.primary = target
	r.installed = append(r.installed, bundle)
	r.mu.Unlock()
	r.step(100, "Installing done.")
}

// GetSlotStatus is RAUC's GetSlotStatus method.
func (r *RAUC) GetSlotStatus() ([]slotStatus, *dbus.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []slotStatus
	for _, s := range r.Slots {
		p := map[string]dbus.Variant{
			"class":    dbus.MakeVariant("rootfs"),
			"device":   dbus.MakeVariant("/dev/mmcblk0p" + map[string]string{"A": "2", "B": "3"}[s.BootName]),
			"bootname": dbus.MakeVariant(s.BootName),
			"state":    dbus.MakeVariant(s.State),
		}
		if s.BundleVersion != "" {
			p["bundle.version"] = dbus.MakeVariant(s.BundleVersion)
		}
		for k, v := range map[string]string{"status": s.Status, "boot-status": s.BootStatus, "installed.timestamp": s.Installed} {
			if v != "" {
				p[k] = dbus.MakeVariant(v)
			}
		}
		out = append(out, slotStatus{s.Name, p})
	}
	return out, nil
}

// GetPrimary is RAUC's GetPrimary method.
func (r *RAUC) GetPrimary() (string, *dbus.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.Slots {
		if s.BootName == r.primary {
			return s.Name, nil
		}
	}
	return "", fail("no primary slot")
}

// Mark is RAUC's Mark method.
func (r *RAUC) Mark(state, slot string) (string, string, *dbus.Error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	name := slot
	for i, s := range r.Slots {
		if (slot == "booted" && s.BootName == r.BootSlot) || (slot == "other" && s.BootName != r.BootSlot) || s.Name == slot {
			name = s.Name
			if state == "good" || state == "bad" {
				r.Slots[i].BootStatus = state
			}
		}
	}
	r.marks = append(r.marks, state+" "+name)
	return name, fmt.Sprintf("marked slot %s as %s", name, state), nil
}

// FakeCheck reads the stand-in bundles FakeBundle writes, for tests that
// are not about signatures: a file holding "compatible version". Anything
// else is refused as RAUC refuses an unsigned file.
func FakeCheck(bundle string) (string, string, error) {
	b, err := os.ReadFile(bundle)
	if err != nil {
		//lint:ignore ST1005 RAUC's own wording
		return "", "", fmt.Errorf("Failed opening bundle: %v", err)
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		return "", "", errors.New("signature verification failed: not a bundle")
	}
	return f[0], f[1], nil
}

// FakeBundle writes a stand-in bundle for FakeCheck.
func FakeBundle(t testing.TB, compatible, version string) string {
	p := filepath.Join(t.TempDir(), "hark-"+version+".raucb")
	if err := os.WriteFile(p, []byte(compatible+" "+version), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

// Booted is the double of a box booted from slot A at 1.0.0, with slot B
// inactive, checking bundles with FakeCheck, on a private bus of its own;
// it returns the double and the bus's address.
func Booted(t testing.TB) (*RAUC, string) {
	t.Helper()
	addr := Bus(t)
	r := &RAUC{
		Compatible: "hark-rpi4-64",
		BootSlot:   "A",
		Slots: []Slot{
			{Name: "rootfs.0", BootName: "A", State: "booted", BundleVersion: "1.0.0", Status: "ok"},
			{Name: "rootfs.1", BootName: "B", State: "inactive"},
		},
		Check: FakeCheck,
	}
	r.Start(t, addr)
	return r, addr
}
