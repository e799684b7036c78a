package update

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/godbus/dbus/v5"
)

// RAUC's D-Bus names.
const (
	raucService   = "de.pengutronix.rauc"
	raucPath      = dbus.ObjectPath("/")
	raucInstaller = "de.pengutronix.rauc.Installer"
)

// Slot is one of RAUC's slots, as GetSlotStatus reports it.
type Slot struct {
	Name          string // "rootfs.0"
	Class         string // "rootfs"
	Device        string
	BootName      string // "A"
	State         string // "booted", "active" or "inactive"
	BootStatus    string // "good" or "bad", from the boot loader
	BundleVersion string // the version of the bundle last written into it
	Installed     string // when, as RAUC writes it
	Status        string // of the last write: "ok" or "failed"
}

// System is RAUC's view of the box.
type System struct {
	Compatible string
	BootSlot   string // the boot name of the slot running now
	Primary    string // the slot the boot loader will try next
	Operation  string // "idle" or "installing"
	LastError  string
	Slots      []Slot
}

// Booted is the slot running now, if RAUC knows it.
func (s System) Booted() (Slot, bool) {
	for _, sl := range s.Slots {
		if sl.State == "booted" || (s.BootSlot != "" && sl.BootName == s.BootSlot && sl.Class == "rootfs") {
			return sl, true
		}
	}
	return Slot{}, false
}

// BundleInfo is what RAUC reads from a bundle after checking its signature.
type BundleInfo struct {
	Compatible string
	Version    string
}

// RAUC is a client of the RAUC service's D-Bus API
// (de.pengutronix.rauc.Installer), on the system bus or a given one.
type RAUC struct {
	conn *dbus.Conn
	obj  dbus.BusObject
}

// DialRAUC connects to RAUC on the D-Bus at address, or on the system bus
// when address is empty.
func DialRAUC(ctx context.Context, address string) (*RAUC, error) {
	var conn *dbus.Conn
	var err error
	if address == "" {
		conn, err = dbus.ConnectSystemBus(dbus.WithContext(ctx))
	} else {
		conn, err = dbus.Connect(address, dbus.WithContext(ctx))
	}
	if err != nil {
		return nil, fmt.Errorf("rauc: connecting to D-Bus: %w: %w", ErrNoRAUC, err)
	}
	return &RAUC{conn: conn, obj: conn.Object(raucService, raucPath)}, nil
}

// ErrNoRAUC reports a machine without RAUC's D-Bus service (or without a
// system bus at all): a desktop rather than a board running Hark's image.
var ErrNoRAUC = errors.New("rauc: no RAUC service on this machine")

// Close closes the D-Bus connection.
func (r *RAUC) Close() error { return r.conn.Close() }

// Status reads the system's and every slot's state.
func (r *RAUC) Status(ctx context.Context) (System, error) {
	var s System
	for name, dst := range map[string]*string{"Compatible": &s.Compatible, "BootSlot": &s.BootSlot, "Operation": &s.Operation, "LastError": &s.LastError} {
		v, err := r.obj.GetProperty(raucInstaller + "." + name)
		if err != nil {
			return System{}, fmt.Errorf("rauc status: %w", explain(err))
		}
		if err := v.Store(dst); err != nil {
			return System{}, fmt.Errorf("rauc status: %s: %w", name, err)
		}
	}
	if err := r.obj.CallWithContext(ctx, raucInstaller+".GetPrimary", 0).Store(&s.Primary); err != nil {
		// Not every boot loader backend can say; the rest stands.
		s.Primary = ""
	}
	var raw []struct {
		Name  string
		Props map[string]dbus.Variant
	}
	if err := r.obj.CallWithContext(ctx, raucInstaller+".GetSlotStatus", 0).Store(&raw); err != nil {
		return System{}, fmt.Errorf("rauc status: slots: %w", explain(err))
	}
	for _, sl := range raw {
		str := func(k string) string {
			if v, ok := sl.Props[k]; ok {
				if s, ok := v.Value().(string); ok {
					return s
				}
			}
			return ""
		}
		s.Slots = append(s.Slots, Slot{
			Name: sl.Name, Class: str("class"), Device: str("device"), BootName: str("bootname"),
			State: str("state"), BootStatus: str("boot-status"), BundleVersion: str("bundle.version"),
			Installed: str("installed.timestamp"), Status: str("status"),
		})
	}
	return s, nil
}

// Info checks a bundle's signature against the keyring and reads its
// compatible and version.
func (r *RAUC) Info(ctx context.Context, bundle string) (BundleInfo, error) {
	var bi BundleInfo
	if err := r.obj.CallWithContext(ctx, raucInstaller+".Info", 0, bundle).Store(&bi.Compatible, &bi.Version); err != nil {
		return BundleInfo{}, fmt.Errorf("rauc refused the bundle: %w", explain(err))
	}
	return bi, nil
}

// Install hands the bundle to RAUC and waits until RAUC has written it
// into the inactive slot and made that slot the next to boot, reporting
// RAUC's progress. RAUC cannot stop halfway: if ctx ends first, Install
// returns but the installation goes on.
func (r *RAUC) Install(ctx context.Context, bundle string, progress func(Progress)) error {
	sig := make(chan *dbus.Signal, 64)
	r.conn.Signal(sig)
	defer r.conn.RemoveSignal(sig)
	at := dbus.WithMatchObjectPath(raucPath)
	for _, m := range [][]dbus.MatchOption{
		{at, dbus.WithMatchInterface(raucInstaller), dbus.WithMatchMember("Completed")},
		{at, dbus.WithMatchInterface("org.freedesktop.DBus.Properties"), dbus.WithMatchMember("PropertiesChanged")},
	} {
		if err := r.conn.AddMatchSignalContext(ctx, m...); err != nil {
			return fmt.Errorf("rauc install: %w", err)
		}
		defer r.conn.RemoveMatchSignalContext(context.WithoutCancel(ctx), m...)
	}

	if err := r.obj.CallWithContext(ctx, raucInstaller+".InstallBundle", 0, bundle, map[string]dbus.Variant{}).Err; err != nil {
		if strings.Contains(err.Error(), "lready") { // "Already processing a different method"
			return fmt.Errorf("rauc install: %w: %v", ErrBusy, explain(err))
		}
		return fmt.Errorf("rauc install: %w", explain(err))
	}
	for {
		select {
		case <-ctx.Done():
			return fmt.Errorf("rauc install: stopped waiting (RAUC carries on): %w", ctx.Err())
		case s, ok := <-sig:
			if !ok {
				return errors.New("rauc install: the D-Bus connection closed")
			}
			switch s.Name {
			case "org.freedesktop.DBus.Properties.PropertiesChanged":
				if len(s.Body) < 2 {
					continue
				}
				changed, _ := s.Body[1].(map[string]dbus.Variant)
				if v, ok := changed["Progress"]; ok && progress != nil {
					var p struct {
						Percent int32
						Message string
						Depth   int32
					}
					if err := dbus.Store([]any{v.Value()}, &p); err == nil {
						progress(Progress{Stage: "install", Percent: int(p.Percent), Message: p.Message})
					}
				}
			case raucInstaller + ".Completed":
				var result int32
				if len(s.Body) > 0 {
					result, _ = s.Body[0].(int32)
				}
				if result == 0 {
					return nil
				}
				msg := "RAUC reported failure"
				if v, err := r.obj.GetProperty(raucInstaller + ".LastError"); err == nil {
					if s, ok := v.Value().(string); ok && s != "" {
						msg = s
					}
				}
				return fmt.Errorf("rauc install: %s", msg)
			}
		}
	}
}

// Mark marks a slot ("booted", "other" or a slot name) good, bad or active.
func (r *RAUC) Mark(ctx context.Context, state, slot string) (string, error) {
	var name, msg string
	if err := r.obj.CallWithContext(ctx, raucInstaller+".Mark", 0, state, slot).Store(&name, &msg); err != nil {
		return "", fmt.Errorf("rauc mark %s %s: %w", state, slot, explain(err))
	}
	return msg, nil
}

// explain turns "name has no owner" into something a person can act on.
func explain(err error) error {
	var de dbus.Error
	if errors.As(err, &de) {
		switch de.Name {
		case "org.freedesktop.DBus.Error.ServiceUnknown", "org.freedesktop.DBus.Error.NameHasNoOwner":
			return fmt.Errorf("%w: the RAUC service is not running (%s)", ErrNoRAUC, de.Name)
		}
		if len(de.Body) > 0 {
			if s, ok := de.Body[0].(string); ok {
				return errors.New(s)
			}
		}
	}
	return err
}

// ExplainWithCLI returns an Agent.Explain that asks the rauc command line
// (with the system.conf at conf, or RAUC's default when empty) why it
// refuses a bundle: RAUC 1.8's D-Bus Info answers only "rauc info error",
// while `rauc info` names the cause (a bad signature, an unknown signer,
// a corrupt file).
func ExplainWithCLI(conf string) func(ctx context.Context, bundle string) string {
	return func(ctx context.Context, bundle string) string {
		args := []string{"info", bundle}
		if conf != "" {
			args = append([]string{"--conf=" + conf}, args...)
		}
		out, err := exec.CommandContext(ctx, "rauc", args...).CombinedOutput()
		if err == nil {
			return ""
		}
		var keep []string
		for _, line := range strings.Split(string(out), "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.Contains(line, "rauc-Message:") || strings.Contains(line, "rauc-DEBUG:") || strings.Contains(line, "rauc-INFO:") {
				continue
			}
			keep = append(keep, line)
		}
		return strings.Join(keep, "; ")
	}
}
