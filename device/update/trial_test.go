package update_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/device/update"
	"github.com/harkbox/hark/device/update/rauctest"
)

var trialNow = time.Date(2026, 11, 27, 9, 0, 0, 0, time.UTC)

// factoryA and friends are the slots of a card flashed with 1.0.0 on A
// that then installed 1.0.1 into B.
var (
	factoryA = update.Slot{Name: "rootfs.0", Class: "rootfs", BootName: "A"}
	updatedB = update.Slot{Name: "rootfs.1", Class: "rootfs", BootName: "B", BundleVersion: "1.0.1", Installed: "2026-11-27T08:00:00Z"}
)

func slot(s update.Slot, state, boot string) update.Slot {
	s.State, s.BootStatus = state, boot
	return s
}

func TestTrialRetry(t *testing.T) {
	rewrittenA := factoryA
	rewrittenA.BundleVersion, rewrittenA.Installed = "1.0.2", "2026-11-27T10:00:00Z"
	tests := []struct {
		name   string
		proven []update.Slot
		sys    update.System
		retry  bool
		why    string
	}{
		{"a fresh card's first slot fails: nothing to go back to", nil,
			update.System{BootSlot: "A", Slots: []update.Slot{slot(factoryA, "booted", "good"), slot(update.Slot{Name: "rootfs.1", Class: "rootfs", BootName: "B"}, "inactive", "good")}},
			false, "never passed a check"},
		{"an update on trial fails, A proven and bootable: reboot", []update.Slot{factoryA},
			update.System{BootSlot: "B", Slots: []update.Slot{slot(factoryA, "inactive", "good"), slot(updatedB, "booted", "good")}},
			true, "rebooting"},
		{"an update that passed before fails now (the HAT unplugged): stay", []update.Slot{factoryA, updatedB},
			update.System{BootSlot: "B", Slots: []update.Slot{slot(factoryA, "inactive", "good"), slot(updatedB, "booted", "good")}},
			false, "passed its check before"},
		{"back on A after the rollback, A fails too: stay", []update.Slot{factoryA},
			update.System{BootSlot: "A", Slots: []update.Slot{slot(factoryA, "booted", "good"), slot(updatedB, "inactive", "bad")}},
			false, "passed its check before"},
		{"on trial, but the boot loader would not boot A: stay", []update.Slot{factoryA},
			update.System{BootSlot: "B", Slots: []update.Slot{slot(factoryA, "inactive", "bad"), slot(updatedB, "booted", "good")}},
			false, "would not boot slot A"},
		{"on trial, but A was written since it passed: stay", []update.Slot{factoryA},
			update.System{BootSlot: "B", Slots: []update.Slot{slot(rewrittenA, "inactive", "good"), slot(updatedB, "booted", "good")}},
			false, "never passed a check"},
		{"RAUC does not say which slot runs: stay", []update.Slot{factoryA},
			update.System{Slots: []update.Slot{slot(factoryA, "inactive", "good"), slot(updatedB, "inactive", "good")}},
			false, "does not say"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := update.State{Dir: t.TempDir()}
			for _, p := range tt.proven {
				if err := st.Proven(p, trialNow); err != nil {
					t.Fatal(err)
				}
			}
			retry, why := st.Retry(tt.sys)
			if retry != tt.retry || !strings.Contains(why, tt.why) {
				t.Errorf("got %v %q, want %v and a reason saying %q", retry, why, tt.retry, tt.why)
			}
		})
	}
}

// A slot is on trial until what is in it passes a boot check here; the
// boot check is strict only then (hark health --mark-good).
func TestTrialOnTrial(t *testing.T) {
	rewrittenB := updatedB
	rewrittenB.BundleVersion, rewrittenB.Installed = "1.0.2", "2026-11-28T10:00:00Z"
	tests := []struct {
		name   string
		proven []update.Slot
		sys    update.System
		trial  bool
		why    string
	}{
		{"a fresh card's first boot", nil,
			update.System{BootSlot: "A", Slots: []update.Slot{slot(factoryA, "booted", "good"), slot(updatedB, "inactive", "good")}},
			true, "slot A is on trial"},
		{"an update's first boot", []update.Slot{factoryA},
			update.System{BootSlot: "B", Slots: []update.Slot{slot(factoryA, "inactive", "good"), slot(updatedB, "booted", "good")}},
			true, "slot B is on trial"},
		{"a later boot of the update", []update.Slot{factoryA, updatedB},
			update.System{BootSlot: "B", Slots: []update.Slot{slot(factoryA, "inactive", "good"), slot(updatedB, "booted", "good")}},
			false, "slot B passed its check before"},
		{"B written again since it passed", []update.Slot{factoryA, updatedB},
			update.System{BootSlot: "B", Slots: []update.Slot{slot(factoryA, "inactive", "good"), slot(rewrittenB, "booted", "good")}},
			true, "slot B is on trial"},
		{"RAUC does not say which slot runs: taken as on trial", []update.Slot{factoryA, updatedB},
			update.System{Slots: []update.Slot{slot(factoryA, "inactive", "good"), slot(updatedB, "inactive", "good")}},
			true, "does not say"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			st := update.State{Dir: t.TempDir()}
			for _, p := range tt.proven {
				if err := st.Proven(p, trialNow); err != nil {
					t.Fatal(err)
				}
			}
			trial, why := st.OnTrial(tt.sys)
			if trial != tt.trial || !strings.Contains(why, tt.why) {
				t.Errorf("got %v %q, want %v and a reason saying %q", trial, why, tt.trial, tt.why)
			}
		})
	}
}

// board is the RAUC double of one boot of the board, on a bus of its own.
func board(t *testing.T, booted string, slots ...rauctest.Slot) *update.RAUC {
	t.Helper()
	addr := rauctest.Bus(t)
	d := &rauctest.RAUC{Compatible: "hark-qemu-arm64", BootSlot: booted, Slots: slots, Check: rauctest.FakeCheck}
	d.Start(t, addr)
	r, err := update.DialRAUC(context.Background(), addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r
}

// TestTrialUpdateThatFailsItsCheck follows a card through three boots: A
// passes on a fresh card; an update on B fails its check and the board
// reboots; back on A after the boot loader gave up on B, a failing check
// (the HAT unplugged, say) leaves the board up.
func TestTrialUpdateThatFailsItsCheck(t *testing.T) {
	ctx := context.Background()
	st := update.State{Dir: t.TempDir()}
	reboots := 0
	reboot := func(context.Context) error { reboots++; return nil }

	first := update.Trial{State: st, RAUC: board(t, "A",
		rauctest.Slot{Name: "rootfs.0", BootName: "A", State: "booted", BootStatus: "good"},
		rauctest.Slot{Name: "rootfs.1", BootName: "B", State: "inactive", BootStatus: "good"}), Reboot: reboot}
	if _, err := first.Pass(ctx, trialNow); err != nil {
		t.Fatalf("the fresh card's check passed, but: %v", err)
	}

	updated := update.Trial{State: st, RAUC: board(t, "B",
		rauctest.Slot{Name: "rootfs.0", BootName: "A", State: "inactive", BootStatus: "good"},
		rauctest.Slot{Name: "rootfs.1", BootName: "B", State: "booted", BootStatus: "good", BundleVersion: "1.0.1", Installed: "2026-11-27T08:00:00Z"}), Reboot: reboot}
	check := update.BootCheck{Time: trialNow, Slot: "B", Version: "1.0.1", Reason: "speech-to-text: no model"}
	why, err := updated.Fail(ctx, check)
	if err != nil || reboots != 1 || !strings.Contains(why, "rebooting") {
		t.Fatalf("an update on trial failed its check: %q, %v, %d reboots; want a reboot", why, err, reboots)
	}
	if got, ok := st.LastFailedBoot(); !ok || got != check {
		t.Errorf("the failed check recorded: %+v %v, want %+v", got, ok, check)
	}

	back := update.Trial{State: st, RAUC: board(t, "A",
		rauctest.Slot{Name: "rootfs.0", BootName: "A", State: "booted", BootStatus: "good"},
		rauctest.Slot{Name: "rootfs.1", BootName: "B", State: "inactive", BootStatus: "bad", BundleVersion: "1.0.1", Installed: "2026-11-27T08:00:00Z"}), Reboot: reboot}
	why, err = back.Fail(ctx, update.BootCheck{Time: trialNow, Slot: "A", Version: "1.0.0", Reason: "microphone: no device"})
	if err != nil || reboots != 1 || !strings.Contains(why, "staying up") {
		t.Errorf("the proven slot failed its check: %q, %v, %d reboots in all; want no new reboot", why, err, reboots)
	}
}

func TestTrialFailWithoutRAUCStaysUp(t *testing.T) {
	st := update.State{Dir: t.TempDir()}
	why, err := update.Trial{State: st, Reboot: func(context.Context) error { return errors.New("must not reboot") }}.
		Fail(context.Background(), update.BootCheck{Time: trialNow, Slot: "A", Reason: "hark never reported ready"})
	if err != nil || !strings.Contains(why, "staying up") {
		t.Errorf("got %q, %v; want staying up", why, err)
	}
	if _, ok := st.LastFailedBoot(); !ok {
		t.Error("the failed check was not recorded")
	}
}

// TestTrialPassForgetsThatVersionsFailure: 1.0.1 failed its check here
// once (a model missing, since mended), and is installed again by hand:
// when it passes, its failure is forgotten, so the update timer no longer
// skips it. A failure of another version stays on record.
func TestTrialPassForgetsThatVersionsFailure(t *testing.T) {
	ctx := context.Background()
	onB := func() update.Trial {
		return update.Trial{State: update.State{Dir: t.TempDir()}, RAUC: board(t, "B",
			rauctest.Slot{Name: "rootfs.0", BootName: "A", State: "inactive", BootStatus: "good"},
			rauctest.Slot{Name: "rootfs.1", BootName: "B", State: "booted", BootStatus: "good", BundleVersion: "1.0.1", Installed: "2026-11-27T08:00:00Z"})}
	}
	for _, tc := range []struct {
		failed string
		kept   bool
	}{{"1.0.1", false}, {"v1.0.1", false}, {"1.0.2", true}} {
		tr := onB()
		if err := tr.State.FailedBoot(update.BootCheck{Time: trialNow, Slot: "B", Version: tc.failed, Reason: "speech-to-text: no model"}); err != nil {
			t.Fatal(err)
		}
		if _, err := tr.Pass(ctx, trialNow); err != nil {
			t.Fatal(err)
		}
		if _, kept := tr.State.LastFailedBoot(); kept != tc.kept {
			t.Errorf("1.0.1 passed; the failure of %s is kept: %v, want %v", tc.failed, kept, tc.kept)
		}
	}
}
