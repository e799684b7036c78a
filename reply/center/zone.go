package center

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
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
// center does not know. A conversation never fails to start over its zone.
func (s *Server) zone(node, name string) *time.Location {
	if strings.TrimSpace(name) == "" {
		return s.o.Location
	}
	if loc, ok := location(name); ok {
		return loc
	}
	if _, warned := s.zonesWarned.LoadOrStore(name, true); !warned {
		s.log.Warn("a node sent a time zone the center does not know; using the center's own", "node", node, "timezone", name, "instead", s.o.Location.String())
	}
	return s.o.Location
}
