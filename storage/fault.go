package storage

import (
	"errors"
	"fmt"
	"io/fs"
	"strings"
	"syscall"
	"time"
)

// ErrUnavailable reports a write the store cannot make now: the data
// partition turned read-only, cannot be read, holds damaged files or is
// not there. Nothing was stored. Only the schedule's writes fail with it;
// the other records are held in memory meanwhile (see Health).
var ErrUnavailable = errors.New("storage: cannot save right now")

// ErrClosed is the error of a write that comes after Close: a part still
// saving while the box stops.
var ErrClosed = errors.New("storage: the store is closed")

// Condition is whether the store can save.
type Condition int

// The conditions.
const (
	// Saving: writes reach the card.
	Saving Condition = iota
	// Holding: the card cannot be written (or read, or opened); the
	// settings, dialogue, diary, facts and secrets written meanwhile are
	// held in memory and written when it is back, and lost if the box
	// stops first. The schedule's writes fail with ErrUnavailable.
	Holding
)

// Health is how the store is doing, for the status, the LEDs and what the
// box says.
type Health struct {
	Condition Condition
	// Err is why the store is Holding.
	Err error
	// Since is when it started Holding.
	Since time.Time
	// Reading is set while Holding when what was stored before can still
	// be read (a card turned read-only); clear when nothing could be
	// opened.
	Reading bool
	// Held is how many changes wait in memory.
	Held int
	// Told is how many of Held are what the household told or set
	// (facts, secrets, settings, the schedule): Held less the record of
	// the talk itself (the dialogue and the diary).
	Told int
	// Data is set when the fault is the data partition's (read-only, an
	// I/O error, damaged or missing files, not mounted): a card to repair
	// or replace, which a system update neither causes nor cures.
	Data bool
	// Recovered describes damaged files found at open and set aside;
	// nil when there were none.
	Recovered *Recovery
}

// OK reports whether the store saves and found nothing damaged.
func (h Health) OK() bool { return h.Condition == Saving && h.Recovered == nil }

// String says how the store is, in a line for the status.
func (h Health) String() string {
	var parts []string
	if h.Condition == Holding {
		s := "cannot save since " + h.Since.Format("15:04:05") + ": " + describe(h.Err)
		if !h.Reading {
			s += "; nothing stored can be read"
		}
		parts = append(parts, s, fmt.Sprintf("%d changes held in memory until it is back (timers will not survive a restart)", h.Held))
	} else {
		parts = append(parts, "open")
	}
	if r := h.Recovered; r != nil {
		parts = append(parts, r.String())
	}
	return strings.Join(parts, "; ")
}

// Why is why the store cannot save, as a person reads it: the cause
// first; "" while it saves.
func (h Health) Why() string {
	if h.Condition != Holding {
		return ""
	}
	return describe(h.Err)
}

// describe is an error as a person reads it: the cause first.
func describe(err error) string {
	switch {
	case err == nil:
		return "unknown"
	case readOnlyFS(err):
		return "the data partition is read-only (" + err.Error() + ")"
	case errors.Is(err, syscall.EIO), strings.Contains(err.Error(), "input/output error"):
		return "the card cannot be read or written (" + err.Error() + ")"
	}
	return err.Error()
}

// readOnlyFS reports whether err says the filesystem is read-only (Badger
// gives some errors as text only).
func readOnlyFS(err error) bool {
	return errors.Is(err, syscall.EROFS) || strings.Contains(err.Error(), "read-only file system")
}

// dataFault reports whether err is the card's or the filesystem's doing
// rather than the program's: read-only, I/O errors, a damaged or missing
// file.
func dataFault(err error) bool {
	if err == nil {
		return false
	}
	for _, errno := range []syscall.Errno{syscall.EROFS, syscall.EIO, syscall.ENODEV, syscall.ENXIO,
		syscall.EUCLEAN, syscall.EBADMSG, syscall.ENOSPC, syscall.ENOTDIR, syscall.ESTALE} {
		if errors.Is(err, errno) {
			return true
		}
	}
	if errors.Is(err, fs.ErrNotExist) || errors.Is(err, errDamaged) || errors.Is(err, errStuck) || errors.Is(err, errNotMounted) {
		return true
	}
	// Badger wraps some errors as text only.
	msg := strings.ToLower(err.Error())
	for _, s := range []string{"read-only file system", "input/output error", "checksum mismatch", "corrupt", "no such file or directory", "bad magic", "truncate"} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// errStuck is a call into Badger that did not come back within the
// store's timeout: a card that stopped answering.
var errStuck = errors.New("the storage stopped answering")

// errDamaged marks what the check before opening found wrong.
var errDamaged = errors.New("damaged files")
