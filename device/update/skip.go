package update

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Kinds of failure an install can end in besides the agent's refusals,
// for Reason. The errors that carry them say what went wrong; these only
// sort them.
var (
	// ErrDownload marks a bundle that could not be downloaded.
	ErrDownload = errors.New("update: the download failed")
	// ErrUnverified marks a bundle RAUC would not read: not signed with
	// a key the box trusts, damaged, or not a bundle at all.
	ErrUnverified = errors.New("update: RAUC did not accept the bundle")
)

// marked is err, sorted as kind too; it says what err says.
type marked struct{ err, kind error }

func (m marked) Error() string   { return m.err.Error() }
func (m marked) Unwrap() []error { return []error{m.err, m.kind} }

func mark(err, kind error) error { return marked{err, kind} }

// Reason is why an install failed, as the updates page says it: what
// kind of failure it was, then the error itself.
func Reason(err error) string {
	var what string
	switch {
	case err == nil:
		return ""
	case errors.Is(err, ErrNotNewer):
		what = "it is not newer than the running version"
	case errors.Is(err, ErrIncompatible):
		what = "it is for another kind of box"
	case errors.Is(err, ErrUnverified):
		what = "RAUC did not accept it (is it signed with the box's key?)"
	case errors.Is(err, ErrDownload), errors.Is(err, ErrNoRoom), errors.Is(err, ErrChecksum):
		what = "the download failed"
	case errors.Is(err, ErrBusy):
		what = "the box was busy with another update"
	default:
		what = "the install failed"
	}
	return what + ": " + err.Error()
}

// Older is why the update timer leaves c's offer alone when it is an
// older version than the running one; "" when it is newer, or the
// running one itself (the box is up to date).
func (c Check) Older() string {
	if c.Newer || c.Available.Version == "" || sameVersion(c.Available.Version, c.Current) {
		return ""
	}
	return "it is not newer than the running version " + c.Current
}

// Skip is an offered version the update timer left alone, and why.
type Skip struct {
	Time    time.Time `json:"time"`
	Version string    `json:"version"`
	Reason  string    `json:"reason"`
}

const lastSkipFile = "last-skip.json"

// Skipped keeps the record of a skip.
func (s State) Skipped(k Skip) error { return s.writeJSON(lastSkipFile, k) }

// LastSkip is the last skip; false when none is recorded, or an install
// succeeded since.
func (s State) LastSkip() (Skip, bool) {
	var k Skip
	if !s.readJSON(lastSkipFile, &k) {
		return Skip{}, false
	}
	return k, true
}

// clearSkip forgets the last skip: an install succeeded since.
func (s State) clearSkip() error {
	if err := os.Remove(filepath.Join(s.Dir, lastSkipFile)); err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("update: forget the last skip: %w", err)
	}
	return nil
}

// Skipped records that the update timer left version alone at at, and
// why (a Reason, Check.Skip or Check.Older): the daemon's updates page
// and API show it until another skip, or an install that succeeds.
func (s *Service) Skipped(at time.Time, version, reason string) error {
	s.agent.log().Info("the update timer did not install an offered version", "version", version, "reason", reason)
	return s.state.Skipped(Skip{Time: at.UTC(), Version: version, Reason: reason})
}

// SkipSentence is the last skip as a sentence for people, in loc:
// "2 Jan 15:04: 1.4.0 was not installed: REASON"; "" when there is none.
func (s *Service) SkipSentence(loc *time.Location) string {
	k, ok := s.state.LastSkip()
	if !ok {
		return ""
	}
	return fmt.Sprintf("%s: %s was not installed: %s", k.Time.In(loc).Format("2 Jan 15:04"), k.Version, k.Reason)
}
