package center

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

const (
	// maxZoneName bounds a zone's name: the longest IANA names are about
	// 30 bytes, an offset under 10. A longer one is not read.
	maxZoneName = 64
	// maxWarnedZones bounds the unknown zones the center remembers having
	// warned about.
	maxWarnedZones = 32
)

// offsetZone is a zone written as its offset, as a Jarvis node guesses it
// from the host's clock: "UTC-00:00", "UTC+05:30", "GMT+2". In a query
// string a node does not escape, the plus arrives as a space.
var offsetZone = regexp.MustCompile(`^(?:UTC|GMT)?\s*([+\- ])\s*(\d{1,2})(?::?(\d{2}))?$`)

// location reads a node's time zone: an IANA name, or an offset from UTC
// as a fixed zone. ok is false for a zone it cannot read; the caller then
// uses its own and says so once.
func location(name string) (loc *time.Location, ok bool) {
	name = strings.TrimSpace(name)
	if len(name) > maxZoneName {
		return nil, false
	}
	switch strings.ToUpper(name) {
	case "UTC", "GMT", "Z", "ETC/UTC":
		return time.UTC, true
	}
	if m := offsetZone.FindStringSubmatch(strings.ToUpper(name)); m != nil {
		h, _ := strconv.Atoi(m[2])
		mins, _ := strconv.Atoi(m[3])
		if h > 14 || mins > 59 {
			return nil, false
		}
		secs := (h*60 + mins) * 60
		sign := "+"
		if m[1] == "-" {
			secs, sign = -secs, "-"
		}
		if secs == 0 {
			return time.UTC, true
		}
		return time.FixedZone(fmt.Sprintf("UTC%s%02d:%02d", sign, h, mins), secs), true
	}
	if name == "" || name == "Local" || strings.ContainsAny(name, " \t") {
		return nil, false
	}
	loc, err := time.LoadLocation(name)
	if err != nil {
		return nil, false
	}
	return loc, true
}

// zone is the node's time zone for a conversation: what it sent when the
// center can read it, else the center's own, with one warning per zone the
// center does not know (for the first maxWarnedZones of them). A
// conversation never fails to start over its zone.
func (s *Server) zone(node, name string) *time.Location {
	if strings.TrimSpace(name) == "" {
		return s.o.Location
	}
	if loc, ok := location(name); ok {
		return loc
	}
	warn, last := s.zonesWarned.first(name)
	if warn {
		s.log.Warn("a node sent a time zone the center does not know; using the center's own", "node", node, "timezone", clip(name), "instead", s.o.Location.String())
	}
	if last {
		s.log.Warn("nodes sent many time zones the center does not know; it warns of no more", "zones", maxWarnedZones)
	}
	return s.o.Location
}

// warnedZones are the unknown zones the center has warned about, at most
// maxWarnedZones of them; every name over maxZoneName counts as one, kept
// as "".
type warnedZones struct {
	mu    sync.Mutex
	names map[string]bool
}

// first reports whether to warn about name: it is new, and there is room
// to remember it. last reports that it took the last room.
func (z *warnedZones) first(name string) (warn, last bool) {
	if len(name) > maxZoneName {
		name = "" // a blank name is the center's own zone, never warned about
	}
	z.mu.Lock()
	defer z.mu.Unlock()
	if z.names[name] || len(z.names) >= maxWarnedZones {
		return false, false
	}
	if z.names == nil {
		z.names = map[string]bool{}
	}
	z.names[name] = true
	return true, len(z.names) == maxWarnedZones
}

// clip is a zone's name for the log: cut to maxZoneName bytes, with its
// length when it was longer.
func clip(name string) string {
	if len(name) <= maxZoneName {
		return name
	}
	cut := maxZoneName
	for cut > 0 && !utf8.RuneStart(name[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes)", name[:cut], len(name))
}
