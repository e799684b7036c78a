package update

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"time"
)

// A slot is on trial from the moment something new is written into it
// until its first boot check passes: the boot loader only counts boots,
// so an update whose hark starts but fails the check would otherwise run
// on, unmarked, until someone reboots the box. The boot check (hark health
// --mark-good) ends a trial either way: a pass marks the slot good and
// records it proven; a failure on a slot on trial reboots the box, which
// spends one of the slot's boot attempts, so that once they are spent the
// boot loader goes back to the other slot.
//
// The reboot is only taken when it leads somewhere safe: the other slot
// must hold what passed a check on this box (a proven slot) and the boot
// loader must still be willing to boot it. A box whose HAT is unplugged
// fails its check on every slot; it reboots only while the update is on
// trial, then stays on the proven slot, failing but up, rather than
// rebooting forever. A box with no proven slot at all (a fresh card, or
// a data partition that was lost) never reboots itself.

const provenFile = "proven-slots.json"

// proof is what a slot held when its boot check passed: RAUC's record of
// the last write into it (empty for the image the card was flashed with).
type proof struct {
	Installed string    `json:"installed"`
	Version   string    `json:"version"`
	Time      time.Time `json:"time"`
}

func proofOf(sl Slot) proof { return proof{Installed: sl.Installed, Version: sl.BundleVersion} }

func (p proof) same(q proof) bool { return p.Installed == q.Installed && p.Version == q.Version }

// Slots are the records in s that tell of the box's slots, not of its
// household: which passed a boot check here, and the last that failed
// one. A factory reset keeps them, or an update that fails its check
// after the reset would find no slot to go back to.
func (s State) Slots() []string {
	return []string{filepath.Join(s.Dir, provenFile), filepath.Join(s.Dir, failedBootFile)}
}

// Proven records that sl, the booted slot, passed its boot check at now:
// until something else is written into it, it is a slot to go back to.
func (s State) Proven(sl Slot, now time.Time) error {
	if sl.BootName == "" {
		return errors.New("update: record a proven slot: the slot has no boot name")
	}
	all := map[string]proof{}
	s.readJSON(provenFile, &all)
	p := proofOf(sl)
	p.Time = now.UTC()
	all[sl.BootName] = p
	return s.writeJSON(provenFile, all)
}

// IsProven reports whether sl still holds what passed a boot check on it.
func (s State) IsProven(sl Slot) bool {
	all := map[string]proof{}
	if !s.readJSON(provenFile, &all) {
		return false
	}
	p, ok := all[sl.BootName]
	return ok && p.same(proofOf(sl))
}

// Retry decides what a failed boot check on the booted slot of sys does:
// reboot (true) while that slot is on trial and the other slot is proven
// and still bootable; otherwise stay up. why says which, for the log.
func (s State) Retry(sys System) (retry bool, why string) {
	booted, ok := sys.Booted()
	if !ok {
		return false, "RAUC does not say which slot is booted; staying up"
	}
	if s.IsProven(booted) {
		return false, fmt.Sprintf("slot %s passed its check before (the fault is not the update's); staying up", booted.BootName)
	}
	for _, other := range sys.Slots {
		if other.Class != booted.Class || other.Name == booted.Name {
			continue
		}
		if !s.IsProven(other) {
			return false, fmt.Sprintf("slot %s is on trial but slot %s never passed a check here; staying up", booted.BootName, other.BootName)
		}
		if other.BootStatus != "good" {
			return false, fmt.Sprintf("slot %s is on trial but the boot loader would not boot slot %s (%s); staying up", booted.BootName, other.BootName, other.BootStatus)
		}
		return true, fmt.Sprintf("slot %s is on trial and failed its check; rebooting, so that once its boot attempts are spent the board goes back to slot %s", booted.BootName, other.BootName)
	}
	return false, "there is no other slot to go back to; staying up"
}

// OnTrial reports whether the booted slot of sys is on trial: it never
// passed a boot check here, or something was written into it since. why
// says which, for the log. When RAUC does not say which slot is booted,
// the slot is taken as on trial: the caller stays on its strict side.
func (s State) OnTrial(sys System) (trial bool, why string) {
	booted, ok := sys.Booted()
	if !ok {
		return true, "RAUC does not say which slot is booted"
	}
	if s.IsProven(booted) {
		return false, fmt.Sprintf("slot %s passed its check before: it is not on trial", booted.BootName)
	}
	return true, fmt.Sprintf("slot %s is on trial: what is in it never passed a check here", booted.BootName)
}

// Slots is what a Trial needs of RAUC; *RAUC is the real one.
type Slots interface {
	Status(ctx context.Context) (System, error)
	Mark(ctx context.Context, state, slot string) (string, error)
}

// Trial is the end of the boot check, for hark health --mark-good.
type Trial struct {
	State State
	RAUC  Slots
	// Reboot restarts the board (SystemReboot on a board).
	Reboot func(ctx context.Context) error
}

// Pass marks the booted slot good and records it proven; it returns
// RAUC's message.
func (t Trial) Pass(ctx context.Context, now time.Time) (string, error) {
	msg, err := t.RAUC.Mark(ctx, "good", "booted")
	if err != nil {
		return "", err
	}
	sys, err := t.RAUC.Status(ctx)
	if err != nil {
		return msg, fmt.Errorf("update: marked good, but cannot record it proven: %w", err)
	}
	booted, ok := sys.Booted()
	if !ok {
		return msg, errors.New("update: marked good, but RAUC does not say which slot is booted")
	}
	if err := t.State.Proven(booted, now); err != nil {
		return msg, err
	}
	// The version that failed here once has passed: the update timer may
	// install it again.
	if f, ok := t.State.LastFailedBoot(); ok && sameVersion(f.Version, booted.BundleVersion) {
		if err := t.State.remove(failedBootFile); err != nil {
			return msg, fmt.Errorf("update: marked good, but the failed check of %s stays on record: %w", f.Version, err)
		}
	}
	return msg, nil
}

// Fail keeps the failed check c for hark update status and, when the
// booted slot is on trial (see Retry), reboots. It returns what it did.
func (t Trial) Fail(ctx context.Context, c BootCheck) (string, error) {
	kept := t.State.FailedBoot(c)
	if t.RAUC == nil {
		return "RAUC is not reachable; staying up", kept
	}
	sys, err := t.RAUC.Status(ctx)
	if err != nil {
		return "", errors.Join(kept, fmt.Errorf("update: after a failed boot check: %w", err))
	}
	retry, why := t.State.Retry(sys)
	if !retry {
		return why, kept
	}
	if kept != nil {
		// Without the record hark update status could not say why the
		// board went back; the boot loader's fallback stands anyway.
		why += " (the reason could not be recorded: " + kept.Error() + ")"
	}
	if t.Reboot == nil {
		return why, errors.New("update: reboot: no way to reboot configured")
	}
	return why, t.Reboot(ctx)
}
